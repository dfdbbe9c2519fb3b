// EXPECT-EXIT: 0
// EXPECT-OUTPUT: buffers: all checks passed
/* Buffers: clCreateBuffer with CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR and
 * CL_MEM_ALLOC_HOST_PTR; clCreateSubBuffer at an origin aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN
 * (a kernel on the sub-buffer changes the parent's bytes, and only those);
 * clEnqueueMapBuffer/clEnqueueUnmapMemObject for reading and writing;
 * clEnqueueReadBufferRect/WriteBufferRect/CopyBufferRect with pitches and origins that are not
 * trivial, compared with a copy done on the host; clEnqueueCopyBuffer; clEnqueueFillBuffer with
 * 1-, 4- and 16-byte patterns; clGetMemObjectInfo; clSetMemObjectDestructorCallback.
 */
#include "common.h"

static const char *source =
    "__kernel void odd(__global uint *data)\n"
    "{\n"
    "    uint i = get_global_id(0);\n"
    "    data[i] = 2 * i + 1;\n"
    "}\n"
    "__kernel void add(__global uint *data, uint amount)\n"
    "{\n"
    "    data[get_global_id(0)] += amount;\n"
    "}\n";

static struct hosts_env env;
static cl_kernel odd, add;

static void run_odd(cl_mem buffer, size_t count)
{
    CL(clSetKernelArg(odd, 0, sizeof buffer, &buffer));
    CL(clEnqueueNDRangeKernel(env.queue, odd, 1, NULL, &count, NULL, 0, NULL, NULL));
}

static void run_add(cl_mem buffer, size_t count, cl_uint amount)
{
    CL(clSetKernelArg(add, 0, sizeof buffer, &buffer));
    CL(clSetKernelArg(add, 1, sizeof amount, &amount));
    CL(clEnqueueNDRangeKernel(env.queue, add, 1, NULL, &count, NULL, 0, NULL, NULL));
}

static void host_pointer_buffers(void)
{
    enum { N = 256 };
    static cl_uint host[N], copy[N], back[N];
    cl_mem buffer;
    cl_uint *mapped;
    cl_int err;
    int i, wrong;

    /* USE_HOST_PTR: the kernel's writes are in the host array after a blocking map. */
    for (i = 0; i < N; i++)
        host[i] = 0xdead;
    buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host, host);
    {
        void *recorded = NULL;
        cl_mem_flags flags = 0;
        CL(clGetMemObjectInfo(buffer, CL_MEM_HOST_PTR, sizeof recorded, &recorded, NULL));
        CHECK(recorded == (void *)host, "USE_HOST_PTR: CL_MEM_HOST_PTR is the array given");
        CL(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
        CHECK(flags == (CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR), "USE_HOST_PTR: CL_MEM_FLAGS as given");
    }
    run_odd(buffer, N);
    mapped = clEnqueueMapBuffer(env.queue, buffer, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &err);
    CL_OK(err, "clEnqueueMapBuffer");
    CHECK(mapped == host, "USE_HOST_PTR: the mapped pointer is the host array (1.2: derived from host_ptr)");
    for (wrong = 0, i = 0; i < N; i++)
        wrong += host[i] != (cl_uint)(2 * i + 1);
    CHECK(wrong == 0, "USE_HOST_PTR: after a blocking map the host array holds the kernel's writes (%d wrong)", wrong);
    for (wrong = 0, i = 0; i < N; i++)
        wrong += mapped[i] != (cl_uint)(2 * i + 1);
    CHECK(wrong == 0, "USE_HOST_PTR: the mapped region holds the kernel's writes (%d wrong)", wrong);
    {
        /* The specification calls the map count stale at once, for debugging only (and
         * Oclgrind always answers 0): shown, not checked. */
        cl_uint map_count = 0;
        CL(clGetMemObjectInfo(buffer, CL_MEM_MAP_COUNT, sizeof map_count, &map_count, NULL));
        printf("info: CL_MEM_MAP_COUNT while mapped: %u\n", map_count);
    }
    CL(clEnqueueUnmapMemObject(env.queue, buffer, mapped, 0, NULL, NULL));
    run_add(buffer, N, 100);
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    for (wrong = 0, i = 0; i < N; i++)
        wrong += back[i] != (cl_uint)(2 * i + 101);
    CHECK(wrong == 0, "USE_HOST_PTR: a blocking read after a second kernel (%d wrong)", wrong);
    CL(clReleaseMemObject(buffer));

    /* COPY_HOST_PTR: later changes to the host array do not reach the buffer. */
    for (i = 0; i < N; i++)
        copy[i] = (cl_uint)(i * i);
    buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof copy, copy);
    for (i = 0; i < N; i++)
        copy[i] = 0;
    run_add(buffer, N, 1);
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    for (wrong = 0, i = 0; i < N; i++)
        wrong += back[i] != (cl_uint)(i * i + 1);
    CHECK(wrong == 0, "COPY_HOST_PTR: the buffer holds the array as it was at creation (%d wrong)", wrong);
    {
        void *recorded = (void *)&recorded;
        CL(clGetMemObjectInfo(buffer, CL_MEM_HOST_PTR, sizeof recorded, &recorded, NULL));
        CHECK(recorded == NULL, "COPY_HOST_PTR: CL_MEM_HOST_PTR is NULL");
    }
    CL(clReleaseMemObject(buffer));

    /* ALLOC_HOST_PTR: written through a map, used by a kernel, read through a map. */
    buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N * sizeof(cl_uint), NULL);
    mapped = clEnqueueMapBuffer(env.queue, buffer, CL_TRUE, CL_MAP_WRITE, 0, N * sizeof(cl_uint), 0, NULL, NULL, &err);
    CL_OK(err, "clEnqueueMapBuffer");
    for (i = 0; i < N; i++)
        mapped[i] = (cl_uint)(3 * i);
    CL(clEnqueueUnmapMemObject(env.queue, buffer, mapped, 0, NULL, NULL));
    run_add(buffer, N, 5);
    mapped = clEnqueueMapBuffer(env.queue, buffer, CL_TRUE, CL_MAP_READ, 0, N * sizeof(cl_uint), 0, NULL, NULL, &err);
    CL_OK(err, "clEnqueueMapBuffer");
    for (wrong = 0, i = 0; i < N; i++)
        wrong += mapped[i] != (cl_uint)(3 * i + 5);
    CHECK(wrong == 0, "ALLOC_HOST_PTR: map for writing, kernel, map for reading (%d wrong)", wrong);
    CL(clEnqueueUnmapMemObject(env.queue, buffer, mapped, 0, NULL, NULL));
    CL(clFinish(env.queue));
    CL(clReleaseMemObject(buffer));
}

static void sub_buffers(void)
{
    cl_uint align_bits = 0;
    size_t align, words, i;
    cl_uint *before, *after;
    cl_mem parent, sub;
    cl_buffer_region region;
    cl_int err;
    int wrong = 0;

    CL(clGetDeviceInfo(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
    align = align_bits / 8;
    words = 4 * align / sizeof(cl_uint);
    before = malloc(4 * align);
    after = malloc(4 * align);
    for (i = 0; i < words; i++)
        before[i] = (cl_uint)(i * 10);
    parent = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * align, before);
    region.origin = align;
    region.size = 2 * align;
    sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CHECK_ERR(err, CL_SUCCESS, "clCreateSubBuffer(origin = CL_DEVICE_MEM_BASE_ADDR_ALIGN)");
    CL_OK(err, "clCreateSubBuffer");
    {
        cl_mem associated = NULL;
        size_t offset = 0, size = 0;
        CL(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
        CHECK(associated == parent, "CL_MEM_ASSOCIATED_MEMOBJECT of the sub-buffer is its parent");
        CL(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
        CHECK(offset == align, "CL_MEM_OFFSET of the sub-buffer is its origin (%zu)", offset);
        CL(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof size, &size, NULL));
        CHECK(size == 2 * align, "CL_MEM_SIZE of the sub-buffer is its size (%zu)", size);
        CL(clGetMemObjectInfo(parent, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
        CHECK(associated == NULL, "CL_MEM_ASSOCIATED_MEMOBJECT of a buffer is NULL");
    }
    run_add(sub, 2 * align / sizeof(cl_uint), 7);
    CL(clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 0, 4 * align, after, 0, NULL, NULL));
    for (i = 0; i < words; i++) {
        int inside = i * sizeof(cl_uint) >= align && i * sizeof(cl_uint) < 3 * align;
        wrong += after[i] != before[i] + (inside ? 7u : 0u);
    }
    CHECK(wrong == 0, "a kernel on the sub-buffer changes exactly the parent's bytes [%zu, %zu) (%d wrong)",
          align, 3 * align, wrong);
    {
        /* Reading the sub-buffer from offset 0 reads the parent at the origin. */
        cl_uint first = 0;
        CL(clEnqueueReadBuffer(env.queue, sub, CL_TRUE, 0, sizeof first, &first, 0, NULL, NULL));
        CHECK(first == before[align / sizeof(cl_uint)] + 7, "offset 0 of the sub-buffer is the parent's origin");
    }
    {
        cl_buffer_region bad;
        cl_mem misaligned;
        bad.origin = sizeof(cl_uint);
        bad.size = sizeof(cl_uint);
        if (hosts_platform_is(env.platform, "Oclgrind")) {
            hosts_skip("clCreateSubBuffer at a misaligned origin (Oclgrind 21.10 accepts it)");
        } else if (align > sizeof(cl_uint)) {
            misaligned = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &bad, &err);
            CHECK_ERR(err, CL_MISALIGNED_SUB_BUFFER_OFFSET, "clCreateSubBuffer(origin 4)");
            if (misaligned != NULL)
                clReleaseMemObject(misaligned);
        }
        bad.origin = 3 * align;
        bad.size = 2 * align;
        misaligned = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &bad, &err);
        CHECK_ERR(err, CL_INVALID_VALUE, "clCreateSubBuffer(region past the parent's end)");
        if (misaligned != NULL)
            clReleaseMemObject(misaligned);
    }
    CL(clReleaseMemObject(sub));
    CL(clReleaseMemObject(parent));
    free(before);
    free(after);
}

static void map_read_and_write(void)
{
    enum { N = 64 };
    cl_uint data[N], back[N];
    cl_uint *mapped;
    cl_mem buffer;
    cl_int err;
    int i, wrong = 0;
    for (i = 0; i < N; i++)
        data[i] = (cl_uint)(1000 + i);
    buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data);
    /* A region in the middle: words 16..31, written through the map. */
    mapped = clEnqueueMapBuffer(env.queue, buffer, CL_TRUE, CL_MAP_WRITE, 16 * sizeof(cl_uint), 16 * sizeof(cl_uint),
                                0, NULL, NULL, &err);
    CL_OK(err, "clEnqueueMapBuffer");
    for (i = 0; i < 16; i++)
        mapped[i] = (cl_uint)(7 * i);
    CL(clEnqueueUnmapMemObject(env.queue, buffer, mapped, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    for (i = 0; i < N; i++)
        wrong += back[i] != (i >= 16 && i < 32 ? (cl_uint)(7 * (i - 16)) : (cl_uint)(1000 + i));
    CHECK(wrong == 0, "a write map of words 16..31 changes those words only (%d wrong)", wrong);
    /* A read map at an offset sees the buffer's bytes there. */
    {
        cl_event mapped_event;
        cl_int status = 0;
        mapped = clEnqueueMapBuffer(env.queue, buffer, CL_FALSE, CL_MAP_READ, 40 * sizeof(cl_uint), 8 * sizeof(cl_uint),
                                    0, NULL, &mapped_event, &err);
        CL_OK(err, "clEnqueueMapBuffer");
        CL(clWaitForEvents(1, &mapped_event));
        CL(clGetEventInfo(mapped_event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
        CHECK(status == CL_COMPLETE, "a non-blocking map's event completes");
        for (wrong = 0, i = 0; i < 8; i++)
            wrong += mapped[i] != (cl_uint)(1040 + i);
        CHECK(wrong == 0, "a non-blocking read map at an offset, after its event: %d wrong", wrong);
        CL(clEnqueueUnmapMemObject(env.queue, buffer, mapped, 0, NULL, NULL));
        CL(clReleaseEvent(mapped_event));
    }
    CL(clFinish(env.queue));
    CL(clReleaseMemObject(buffer));
}

/* The host's version of a rectangular copy: `region` is {bytes, rows, slices}. */
static void copy_rect(unsigned char *dst, const size_t dst_origin[3], size_t dst_row, size_t dst_slice,
                      const unsigned char *src, const size_t src_origin[3], size_t src_row, size_t src_slice,
                      const size_t region[3])
{
    size_t y, z;
    for (z = 0; z < region[2]; z++)
        for (y = 0; y < region[1]; y++)
            memcpy(dst + (dst_origin[2] + z) * dst_slice + (dst_origin[1] + y) * dst_row + dst_origin[0],
                   src + (src_origin[2] + z) * src_slice + (src_origin[1] + y) * src_row + src_origin[0], region[0]);
}

static unsigned char pattern_byte(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + seed * 17u + (i >> 8) * 7u) & 0xff);
}

static void rectangles(void)
{
    /* The buffer as 4 slices of 9 rows of 40 bytes; the host side has other pitches. */
    enum { ROW = 40, SLICE = 40 * 9, SIZE = 40 * 9 * 4, HOST_ROW = 20, HOST_SLICE = 20 * 7, HOST_SIZE = 20 * 7 * 4 };
    static const size_t buffer_origin[3] = { 3, 2, 1 };
    static const size_t host_origin[3] = { 2, 1, 0 };
    static const size_t region[3] = { 13, 5, 3 };
    unsigned char device_bytes[SIZE], host_bytes[HOST_SIZE], expected[SIZE], back[SIZE], host_expected[HOST_SIZE];
    cl_mem buffer, other;
    size_t i;
    int wrong;

    for (i = 0; i < SIZE; i++)
        device_bytes[i] = pattern_byte(i, 1);
    buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, SIZE, device_bytes);

    /* Read a box out of the buffer into a host array with other pitches. */
    memset(host_bytes, 0xAB, sizeof host_bytes);
    memcpy(host_expected, host_bytes, sizeof host_bytes);
    CL(clEnqueueReadBufferRect(env.queue, buffer, CL_TRUE, buffer_origin, host_origin, region, ROW, SLICE, HOST_ROW,
                               HOST_SLICE, host_bytes, 0, NULL, NULL));
    copy_rect(host_expected, host_origin, HOST_ROW, HOST_SLICE, device_bytes, buffer_origin, ROW, SLICE, region);
    CHECK(memcmp(host_bytes, host_expected, sizeof host_bytes) == 0,
          "clEnqueueReadBufferRect(origin {3,2,1}, region {13,5,3}, pitches 40/360 -> 20/140) copies the box only");

    /* Zero pitches mean tightly packed: row pitch = region[0], slice pitch = region[1] * row pitch. */
    {
        static const size_t origin0[3] = { 0, 0, 0 };
        unsigned char packed[13 * 5 * 3];
        unsigned char packed_expected[13 * 5 * 3];
        CL(clEnqueueReadBufferRect(env.queue, buffer, CL_TRUE, buffer_origin, origin0, region, ROW, SLICE, 0, 0, packed, 0,
                                   NULL, NULL));
        copy_rect(packed_expected, origin0, 13, 13 * 5, device_bytes, buffer_origin, ROW, SLICE, region);
        CHECK(memcmp(packed, packed_expected, sizeof packed) == 0,
              "clEnqueueReadBufferRect with host pitches 0 packs the box tightly");
    }

    /* Write a box from the host array into the buffer. */
    for (i = 0; i < HOST_SIZE; i++)
        host_bytes[i] = pattern_byte(i, 2);
    memcpy(expected, device_bytes, SIZE);
    {
        static const size_t write_buffer_origin[3] = { 20, 3, 2 };
        static const size_t write_host_origin[3] = { 5, 2, 1 };
        static const size_t write_region[3] = { 15, 4, 2 };
        CL(clEnqueueWriteBufferRect(env.queue, buffer, CL_TRUE, write_buffer_origin, write_host_origin, write_region, ROW,
                                    SLICE, HOST_ROW, HOST_SLICE, host_bytes, 0, NULL, NULL));
        copy_rect(expected, write_buffer_origin, ROW, SLICE, host_bytes, write_host_origin, HOST_ROW, HOST_SLICE,
                  write_region);
    }
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, SIZE, back, 0, NULL, NULL));
    for (wrong = 0, i = 0; i < SIZE; i++)
        wrong += back[i] != expected[i];
    CHECK(wrong == 0, "clEnqueueWriteBufferRect(origin {20,3,2}, region {15,4,2}) changes the box only (%d bytes wrong)",
          wrong);

    /* Copy a box between two buffers of different pitches. */
    {
        enum { DST_ROW = 32, DST_SLICE = 32 * 12, DST_SIZE = 32 * 12 * 3 };
        static const size_t src_origin[3] = { 7, 1, 0 };
        static const size_t dst_origin[3] = { 1, 4, 1 };
        static const size_t copy_region[3] = { 25, 6, 2 };
        unsigned char dst_bytes[DST_SIZE], dst_expected[DST_SIZE], dst_back[DST_SIZE];
        for (i = 0; i < DST_SIZE; i++)
            dst_bytes[i] = pattern_byte(i, 3);
        memcpy(dst_expected, dst_bytes, DST_SIZE);
        other = hosts_buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, DST_SIZE, dst_bytes);
        CL(clEnqueueCopyBufferRect(env.queue, buffer, other, src_origin, dst_origin, copy_region, ROW, SLICE, DST_ROW,
                                   DST_SLICE, 0, NULL, NULL));
        copy_rect(dst_expected, dst_origin, DST_ROW, DST_SLICE, expected, src_origin, ROW, SLICE, copy_region);
        CL(clEnqueueReadBuffer(env.queue, other, CL_TRUE, 0, DST_SIZE, dst_back, 0, NULL, NULL));
        for (wrong = 0, i = 0; i < DST_SIZE; i++)
            wrong += dst_back[i] != dst_expected[i];
        CHECK(wrong == 0,
              "clEnqueueCopyBufferRect(src {7,1,0} pitches 40/360, dst {1,4,1} pitches 32/384, region {25,6,2}): %d bytes wrong",
              wrong);
        CL(clReleaseMemObject(other));
    }

    /* clEnqueueCopyBuffer between offsets, and an overlapping copy in one buffer is an error. */
    {
        unsigned char copy_back[SIZE];
        other = hosts_buffer(env.context, CL_MEM_READ_WRITE, SIZE, NULL);
        CL(clEnqueueFillBuffer(env.queue, other, "\x11", 1, 0, SIZE, 0, NULL, NULL));
        CL(clEnqueueCopyBuffer(env.queue, buffer, other, 100, 17, 201, 0, NULL, NULL));
        CL(clEnqueueReadBuffer(env.queue, other, CL_TRUE, 0, SIZE, copy_back, 0, NULL, NULL));
        for (wrong = 0, i = 0; i < SIZE; i++)
            wrong += copy_back[i] != (i >= 17 && i < 17 + 201 ? expected[i - 17 + 100] : 0x11);
        CHECK(wrong == 0, "clEnqueueCopyBuffer(src offset 100, dst offset 17, 201 bytes): %d bytes wrong", wrong);
        CHECK_CODE(clEnqueueCopyBuffer(env.queue, buffer, buffer, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
        CL(clReleaseMemObject(other));
    }
    CL(clReleaseMemObject(buffer));
}

static void fills(void)
{
    enum { SIZE = 256 };
    static const unsigned char one = 0x5A;
    static const cl_uint four = 0x01020304u;
    static const unsigned char sixteen[16] = { 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
                                               0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f };
    unsigned char expected[SIZE], back[SIZE];
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_READ_WRITE, SIZE, NULL);
    size_t i;
    int wrong;

    memset(expected, 0xEE, SIZE);
    CL(clEnqueueWriteBuffer(env.queue, buffer, CL_TRUE, 0, SIZE, expected, 0, NULL, NULL));
    CL(clEnqueueFillBuffer(env.queue, buffer, &one, 1, 3, 10, 0, NULL, NULL));
    memset(expected + 3, one, 10);
    CL(clEnqueueFillBuffer(env.queue, buffer, &four, 4, 16, 32, 0, NULL, NULL));
    for (i = 16; i < 48; i += 4)
        memcpy(expected + i, &four, 4);
    CL(clEnqueueFillBuffer(env.queue, buffer, sixteen, 16, 64, 64, 0, NULL, NULL));
    for (i = 64; i < 128; i += 16)
        memcpy(expected + i, sixteen, 16);
    CL(clEnqueueReadBuffer(env.queue, buffer, CL_TRUE, 0, SIZE, back, 0, NULL, NULL));
    for (wrong = 0, i = 0; i < SIZE; i++)
        wrong += back[i] != expected[i];
    CHECK(wrong == 0, "clEnqueueFillBuffer with 1-byte (3+10), 4-byte (16+32) and 16-byte (64+64) patterns: %d bytes wrong",
          wrong);
    CHECK_CODE(clEnqueueFillBuffer(env.queue, buffer, &four, 4, 2, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    if (hosts_platform_is(env.platform, "Oclgrind"))
        hosts_skip("clEnqueueFillBuffer with a 3-byte pattern (Oclgrind 21.10 accepts it)");
    else
        CHECK_CODE(clEnqueueFillBuffer(env.queue, buffer, &four, 3, 0, 9, 0, NULL, NULL), CL_INVALID_VALUE);
    CL(clReleaseMemObject(buffer));
}

static int destructor_calls;

static void CL_CALLBACK destructor(cl_mem memobj, void *user_data)
{
    (void)memobj;
    if (user_data == &destructor_calls)
        destructor_calls++;
}

static void object_info(void)
{
    cl_mem buffer = hosts_buffer(env.context, CL_MEM_READ_ONLY, 1000, NULL);
    cl_mem_object_type type = 0;
    cl_mem_flags flags = 0;
    size_t size = 0, returned = 0;
    cl_uint count = 0;
    cl_context context = NULL;

    CL(clGetMemObjectInfo(buffer, CL_MEM_TYPE, sizeof type, &type, &returned));
    CHECK(type == CL_MEM_OBJECT_BUFFER && returned == sizeof type, "CL_MEM_TYPE is CL_MEM_OBJECT_BUFFER");
    CL(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof flags, &flags, &returned));
    CHECK(flags == CL_MEM_READ_ONLY && returned == sizeof flags, "CL_MEM_FLAGS is CL_MEM_READ_ONLY");
    CL(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, &returned));
    CHECK(size == 1000 && returned == sizeof size, "CL_MEM_SIZE is 1000");
    CL(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof context, &context, &returned));
    CHECK(context == env.context, "CL_MEM_CONTEXT is its context");
    CL(clGetMemObjectInfo(buffer, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL));
    CHECK(count == 1, "CL_MEM_REFERENCE_COUNT is 1");
    CL(clRetainMemObject(buffer));
    CL(clGetMemObjectInfo(buffer, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL));
    CHECK(count == 2, "clRetainMemObject makes it 2");
    CL(clReleaseMemObject(buffer));
    {
        size_t offset = 99;
        CL(clGetMemObjectInfo(buffer, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
        CHECK(offset == 0, "CL_MEM_OFFSET of a buffer is 0");
    }
    CL(clSetMemObjectDestructorCallback(buffer, destructor, &destructor_calls));
    CL(clReleaseMemObject(buffer));
    CL(clFinish(env.queue));
    CHECK(destructor_calls == 1, "the destructor callback ran once, with its user data, on the last release");
}

int main(void)
{
    cl_program program;
    env = hosts_setup();
    program = hosts_build(env.context, env.device, source, "");
    odd = hosts_kernel(program, "odd");
    add = hosts_kernel(program, "add");

    host_pointer_buffers();
    sub_buffers();
    map_read_and_write();
    rectangles();
    fills();
    object_info();

    CL(clReleaseKernel(odd));
    CL(clReleaseKernel(add));
    CL(clReleaseProgram(program));
    hosts_teardown(&env);
    return hosts_finish("buffers");
}
