// Front-end coverage: __constant program-scope arrays (1D with an inferred
// length, 2D, a constant struct table) indexed with data-dependent indices.
// Pattern: a substitution box and a small filter bank, as in ciphers and
// image filters.

__constant uchar substitution[] = {
    0x6, 0x4, 0xc, 0x5, 0x0, 0x7, 0x2, 0xe, 0x1, 0xf, 0x3, 0xd, 0x8, 0xa, 0x9, 0xb,
};

__constant float filter_bank[3][3] = {
    { 0.25f, 0.5f, 0.25f },
    { -1.0f, 0.0f, 1.0f },
    { 0.1f, 0.8f, 0.1f },
};

typedef struct {
    int shift;
    uint mask;
} lane_rule;

__constant lane_rule rules[2] = { { 3, 0xf0u }, { 5, 0x0fu } };

__kernel void lang_constant_tables(__global const uint *keys,
                                   __global const float *signal,
                                   __global uint *mixed,
                                   __global float *filtered,
                                   const int n)
{
    const int i = get_global_id(0);
    const uint key = keys[i];

    // Substitute each nibble of the low byte through the table.
    const uint low = substitution[key & 0xf];
    const uint high = substitution[(key >> 4) & 0xf];
    const lane_rule rule = rules[i & 1];
    mixed[i] = ((high << 4) | low) ^ ((key >> rule.shift) & rule.mask);

    const int bank = key % 3;
    const float left = signal[max(i - 1, 0)];
    const float centre = signal[i];
    const float right = signal[min(i + 1, n - 1)];
    filtered[i] = filter_bank[bank][0] * left + filter_bank[bank][1] * centre +
                  filter_bank[bank][2] * right;
}
