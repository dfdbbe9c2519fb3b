// Front-end coverage: global atomics on int and uint (atomic_add, atomic_sub,
// atomic_inc, atomic_min, atomic_max, atomic_or, atomic_xor), an atomic
// maximum built from atomic_cmpxchg in a bounded retry loop, and atom_add on
// a ulong with the cl_khr_int64_base_atomics extension. Only commutative
// updates are used, so the results do not depend on the order of work-items.

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

__kernel void lang_global_atomics(__global const int *in,
                                  __global int *counters,
                                  __global uint *bitsets,
                                  __global int *cas_maximum,
                                  __global ulong *wide_sum)
{
    const int v = in[get_global_id(0)];

    atomic_add(&counters[0], v);
    atomic_sub(&counters[1], v);
    atomic_inc(&counters[2]);
    atomic_min(&counters[3], v);
    atomic_max(&counters[4], v);
    atomic_or(&bitsets[0], 1u << (v & 31));
    atomic_xor(&bitsets[1], (uint)v * 2654435761u);

    // Each failed exchange means another work-item raised the value, so the
    // number of rounds is bounded by the number of work-items.
    int seen = atomic_add(cas_maximum, 0); // an atomic read
    for (int round = 0; round < 4096 && seen < v; round++) {
        const int previous = atomic_cmpxchg(cas_maximum, seen, v);
        if (previous == seen)
            break;
        seen = previous;
    }

    atom_add(wide_sum, (ulong)v << 24);
}
