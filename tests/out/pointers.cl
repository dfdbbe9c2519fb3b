void swap(float *a, float *b) {
    float t = *a;
    *a = *b;
    *b = t;
}

__global float *advance(__global float *p, int n) {
    return p + n;
}

__kernel void pointers(__global float *data, __global long *dist, int n) {
    __global float *begin = data;
    __global float *end = advance(data, n);
    float x = data[0];
    float y = data[1];
    swap(&x, &y);
    data[0] = x;
    *(data + 1) = y;
    dist[0] = end - begin;
    if (end > begin && begin != 0) {
        dist[1] = 1;
    }
    __global float *p = end;
    p -= 2;
    p++;
    dist[2] = p - data;
}
