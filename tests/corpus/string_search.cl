// Naive string search: marks every position of the text where the pattern
// starts and counts the matches of each work-group's chunk.
// Pattern: AMD SDK StringSearch (seed 000, AMD-SS): every work-group copies the
// whole pattern into local memory (strided loop), then each work-item compares
// its text positions against it; all work-items read the same local element
// at the same time (Table III: LS (lx), LL (i)).
// Each work-group searches the positions [group * chunk, group * chunk + chunk).

static bool matches_at(const __global uchar *text, __local const uchar *pattern,
                       uint length)
{
    for (uint i = 0; i < length; i++) {
        if (text[i] != pattern[i])
            return false;
    }
    return true;
}

__kernel void string_search(const __global uchar *text,
                            const uint text_length,
                            const __global uchar *pattern,
                            const uint pattern_length,
                            __global uint *match_flags,
                            __global uint *match_counts,
                            const uint chunk,
                            __local uchar *local_pattern)
{
    const uint lid = get_local_id(0);
    const uint group_size = get_local_size(0);
    const uint group = get_group_id(0);

    const uint last_start = text_length - pattern_length + 1;
    const uint begin = group * chunk;
    if (begin > last_start)
        return; // uniform over the work-group: no barrier is skipped by a part of it
    const uint end = min(begin + chunk, last_start);

    for (uint i = lid; i < pattern_length; i += group_size)
        local_pattern[i] = pattern[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint pos = begin + lid; pos < end; pos += group_size) {
        if (matches_at(text + pos, local_pattern, pattern_length)) {
            match_flags[pos] = 1;
            atomic_inc(&match_counts[group]);
        }
    }
}
