// Weighted squared distance of every point to one candidate centre.
// Pattern: Rodinia streamcluster "pgain" (seed 000, ROD-SC): the coordinates
// of the candidate are staged by a single work-item
//     if (lid == 0) centre[i] = coord[i * num + x]; barrier
// and then broadcast to the whole work-group. Coordinates are stored
// dimension-major (coord[d * num + point]), so the DIM staged values lie far
// apart in global memory but contiguously in local memory.

#ifndef DIM
#define DIM 16
#endif

__kernel void broadcast_streamcluster(const __global float *coord,
                                      const __global float *weight,
                                      __global float *cost,
                                      const int num,
                                      const int x)
{
    __local float centre[DIM];
    const int gid = get_global_id(0);

    if (get_local_id(0) == 0) {
        for (int d = 0; d < DIM; d++)
            centre[d] = coord[d * num + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < num) {
        float dist = 0.0f;
        for (int d = 0; d < DIM; d++) {
            const float diff = coord[d * num + gid] - centre[d];
            dist += diff * diff;
        }
        cost[gid] = dist * weight[gid];
    }
}
