// Front-end coverage: double precision with the cl_khr_fp64 pragma: double
// scalars and vectors, literals without suffix, conversions to and from float,
// double math built-ins. Pattern: a Kahan-compensated dot product per row.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void lang_double_fp64(__global const double *a,
                               __global const float *b,
                               __global double *row_dot,
                               __global float *narrowed,
                               const int width)
{
    const int row = get_global_id(0);
    double sum = 0.0;
    double compensation = 0.0;
    for (int k = 0; k < width; k++) {
        const double term = a[row * width + k] * (double)b[row * width + k] - compensation;
        const double next = sum + term;
        compensation = (next - sum) - term;
        sum = next;
    }
    const double2 pair = (double2)(sum, sqrt(fabs(sum)) + 1.5);
    row_dot[row] = pair.x + pair.y * 1e-3;
    narrowed[row] = convert_float(pair.y) + (float)exp(-fabs(sum));
}
