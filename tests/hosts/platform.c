// EXPECT-EXIT: 0
// EXPECT-OUTPUT: platform: all checks passed
// ENV: HOSTS_ALL_DEVICE_TYPES=1
/* Platforms and devices: clGetPlatformIDs, clGetPlatformInfo (every 1.2 parameter),
 * clGetDeviceIDs for every device type, clGetDeviceInfo for every 1.2 parameter (size asked
 * first, then the value, and the two agree) and the limits the 1.2 specification sets for a
 * full-profile device.
 *
 * With HOSTS_ALL_DEVICE_TYPES=1 every device type (CPU, GPU, ACCELERATOR, DEFAULT, ALL) must
 * find a device, as on a platform that, like Oclgrind's, answers every type; without it only
 * ALL and DEFAULT must, and the others may answer CL_DEVICE_NOT_FOUND (PoCL has only a CPU).
 */
#include "common.h"

/* How a parameter's value is laid out, for the size check. */
enum value_kind {
    KIND_UINT,      /* cl_uint, cl_bool and the cl_uint enums */
    KIND_ULONG,     /* cl_ulong and every cl_bitfield */
    KIND_SIZE,      /* size_t */
    KIND_STRING,    /* NUL-terminated char[] */
    KIND_SIZES,     /* size_t[CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS] */
    KIND_POINTER,   /* a handle: cl_platform_id, cl_device_id */
    KIND_PROPERTIES /* cl_device_partition_property[] (may be empty or one 0) */
};

struct parameter {
    cl_uint param;
    const char *name;
    enum value_kind kind;
};

#define PARAM(p, kind) { p, #p, kind }

static const struct parameter platform_parameters[] = {
    PARAM(CL_PLATFORM_PROFILE, KIND_STRING),
    PARAM(CL_PLATFORM_VERSION, KIND_STRING),
    PARAM(CL_PLATFORM_NAME, KIND_STRING),
    PARAM(CL_PLATFORM_VENDOR, KIND_STRING),
    PARAM(CL_PLATFORM_EXTENSIONS, KIND_STRING),
};

static const struct parameter device_parameters[] = {
    PARAM(CL_DEVICE_TYPE, KIND_ULONG),
    PARAM(CL_DEVICE_VENDOR_ID, KIND_UINT),
    PARAM(CL_DEVICE_MAX_COMPUTE_UNITS, KIND_UINT),
    PARAM(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, KIND_UINT),
    PARAM(CL_DEVICE_MAX_WORK_GROUP_SIZE, KIND_SIZE),
    PARAM(CL_DEVICE_MAX_WORK_ITEM_SIZES, KIND_SIZES),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, KIND_UINT),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, KIND_UINT),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, KIND_UINT),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, KIND_UINT),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, KIND_UINT),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, KIND_UINT),
    PARAM(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, KIND_UINT),
    PARAM(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, KIND_UINT),
    PARAM(CL_DEVICE_MAX_CLOCK_FREQUENCY, KIND_UINT),
    PARAM(CL_DEVICE_ADDRESS_BITS, KIND_UINT),
    PARAM(CL_DEVICE_MAX_MEM_ALLOC_SIZE, KIND_ULONG),
    PARAM(CL_DEVICE_IMAGE_SUPPORT, KIND_UINT),
    PARAM(CL_DEVICE_MAX_READ_IMAGE_ARGS, KIND_UINT),
    PARAM(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, KIND_UINT),
    PARAM(CL_DEVICE_IMAGE2D_MAX_WIDTH, KIND_SIZE),
    PARAM(CL_DEVICE_IMAGE2D_MAX_HEIGHT, KIND_SIZE),
    PARAM(CL_DEVICE_IMAGE3D_MAX_WIDTH, KIND_SIZE),
    PARAM(CL_DEVICE_IMAGE3D_MAX_HEIGHT, KIND_SIZE),
    PARAM(CL_DEVICE_IMAGE3D_MAX_DEPTH, KIND_SIZE),
    PARAM(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, KIND_SIZE),
    PARAM(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, KIND_SIZE),
    PARAM(CL_DEVICE_MAX_SAMPLERS, KIND_UINT),
    PARAM(CL_DEVICE_MAX_PARAMETER_SIZE, KIND_SIZE),
    PARAM(CL_DEVICE_MEM_BASE_ADDR_ALIGN, KIND_UINT),
    PARAM(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, KIND_UINT),
    PARAM(CL_DEVICE_SINGLE_FP_CONFIG, KIND_ULONG),
    PARAM(CL_DEVICE_DOUBLE_FP_CONFIG, KIND_ULONG),
    PARAM(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, KIND_UINT),
    PARAM(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, KIND_UINT),
    PARAM(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, KIND_ULONG),
    PARAM(CL_DEVICE_GLOBAL_MEM_SIZE, KIND_ULONG),
    PARAM(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, KIND_ULONG),
    PARAM(CL_DEVICE_MAX_CONSTANT_ARGS, KIND_UINT),
    PARAM(CL_DEVICE_LOCAL_MEM_TYPE, KIND_UINT),
    PARAM(CL_DEVICE_LOCAL_MEM_SIZE, KIND_ULONG),
    PARAM(CL_DEVICE_ERROR_CORRECTION_SUPPORT, KIND_UINT),
    PARAM(CL_DEVICE_HOST_UNIFIED_MEMORY, KIND_UINT),
    PARAM(CL_DEVICE_PROFILING_TIMER_RESOLUTION, KIND_SIZE),
    PARAM(CL_DEVICE_ENDIAN_LITTLE, KIND_UINT),
    PARAM(CL_DEVICE_AVAILABLE, KIND_UINT),
    PARAM(CL_DEVICE_COMPILER_AVAILABLE, KIND_UINT),
    PARAM(CL_DEVICE_LINKER_AVAILABLE, KIND_UINT),
    PARAM(CL_DEVICE_EXECUTION_CAPABILITIES, KIND_ULONG),
    PARAM(CL_DEVICE_QUEUE_PROPERTIES, KIND_ULONG),
    PARAM(CL_DEVICE_BUILT_IN_KERNELS, KIND_STRING),
    PARAM(CL_DEVICE_PLATFORM, KIND_POINTER),
    PARAM(CL_DEVICE_NAME, KIND_STRING),
    PARAM(CL_DEVICE_VENDOR, KIND_STRING),
    PARAM(CL_DRIVER_VERSION, KIND_STRING),
    PARAM(CL_DEVICE_PROFILE, KIND_STRING),
    PARAM(CL_DEVICE_VERSION, KIND_STRING),
    PARAM(CL_DEVICE_OPENCL_C_VERSION, KIND_STRING),
    PARAM(CL_DEVICE_EXTENSIONS, KIND_STRING),
    PARAM(CL_DEVICE_PRINTF_BUFFER_SIZE, KIND_SIZE),
    PARAM(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, KIND_UINT),
    PARAM(CL_DEVICE_PARENT_DEVICE, KIND_POINTER),
    PARAM(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, KIND_UINT),
    PARAM(CL_DEVICE_PARTITION_PROPERTIES, KIND_PROPERTIES),
    PARAM(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, KIND_ULONG),
    PARAM(CL_DEVICE_PARTITION_TYPE, KIND_PROPERTIES),
    PARAM(CL_DEVICE_REFERENCE_COUNT, KIND_UINT),
    /* CL_DEVICE_HALF_FP_CONFIG belongs to cl_khr_fp16 (cl_ext.h), not to the core table. */
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Whether `size` bytes fit the layout `kind` of a value; `value` is what was returned. */
static int size_fits(enum value_kind kind, size_t size, const char *value, cl_uint dimensions)
{
    switch (kind) {
    case KIND_UINT:
        return size == sizeof(cl_uint);
    case KIND_ULONG:
        return size == sizeof(cl_ulong);
    case KIND_SIZE:
        return size == sizeof(size_t);
    case KIND_STRING:
        return size >= 1 && value[size - 1] == '\0' && strlen(value) + 1 == size;
    case KIND_SIZES:
        return size == dimensions * sizeof(size_t);
    case KIND_POINTER:
        return size == sizeof(void *);
    case KIND_PROPERTIES:
        return size % sizeof(cl_device_partition_property) == 0;
    }
    return 0;
}

static cl_uint device_uint(cl_device_id device, cl_device_info param)
{
    cl_uint value = 0;
    CL(clGetDeviceInfo(device, param, sizeof value, &value, NULL));
    return value;
}

static cl_ulong device_ulong(cl_device_id device, cl_device_info param)
{
    cl_ulong value = 0;
    CL(clGetDeviceInfo(device, param, sizeof value, &value, NULL));
    return value;
}

static size_t device_size(cl_device_id device, cl_device_info param)
{
    size_t value = 0;
    CL(clGetDeviceInfo(device, param, sizeof value, &value, NULL));
    return value;
}

static void device_string(cl_device_id device, cl_device_info param, char *value, size_t capacity)
{
    CL(clGetDeviceInfo(device, param, capacity, value, NULL));
}

/* "OpenCL 1.2 …" → 12; 0 when the text does not start so. */
static int version_number(const char *text, const char *prefix)
{
    int major = 0, minor = 0;
    size_t length = strlen(prefix);
    if (strncmp(text, prefix, length) != 0 || sscanf(text + length, "%d.%d", &major, &minor) != 2)
        return 0;
    return major * 10 + minor;
}

static int has_extension(const char *extensions, const char *name)
{
    size_t length = strlen(name);
    const char *at = extensions;
    while ((at = strstr(at, name)) != NULL) {
        int starts = at == extensions || at[-1] == ' ';
        int ends = at[length] == '\0' || at[length] == ' ';
        if (starts && ends)
            return 1;
        at += length;
    }
    return 0;
}

static void check_platform(cl_platform_id platform)
{
    size_t i;
    for (i = 0; i < COUNT(platform_parameters); i++) {
        const struct parameter *p = &platform_parameters[i];
        size_t size = 0, returned = 0;
        char *value;
        CL(clGetPlatformInfo(platform, p->param, 0, NULL, &size));
        value = calloc(size + 1, 1);
        CL(clGetPlatformInfo(platform, p->param, size, value, &returned));
        CHECK(returned == size && size_fits(p->kind, size, value, 0),
              "clGetPlatformInfo(%s) = \"%s\" (%zu bytes, asked size %zu)", p->name, value,
              returned, size);
        if (p->param == CL_PLATFORM_PROFILE)
            CHECK(strcmp(value, "FULL_PROFILE") == 0 || strcmp(value, "EMBEDDED_PROFILE") == 0,
                  "the platform profile is FULL_PROFILE or EMBEDDED_PROFILE");
        if (p->param == CL_PLATFORM_VERSION)
            CHECK(version_number(value, "OpenCL ") >= 12,
                  "the platform version reads \"OpenCL <major>.<minor> ...\", at least 1.2");
        if (p->param == CL_PLATFORM_NAME)
            CHECK(strlen(value) > 0, "the platform has a name");
        if (p->param == CL_PLATFORM_EXTENSIONS)
            CHECK(has_extension(value, "cl_khr_icd"),
                  "the platform lists cl_khr_icd (the ICD loader found it)");
        free(value);
    }
    {
        /* A buffer one byte short of the name is the caller's mistake. */
        size_t size = 0;
        char small[1];
        CL(clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, NULL, &size));
        if (size > 1)
            CHECK_CODE(clGetPlatformInfo(platform, CL_PLATFORM_NAME, size - 1 < sizeof small ? size - 1 : sizeof small, small, NULL),
                       CL_INVALID_VALUE);
    }
}

struct device_type_query {
    cl_device_type type;
    const char *name;
};

/* Asks for every device type; returns the number of devices of CL_DEVICE_TYPE_ALL. */
static void check_device_types(cl_platform_id platform, int all_types_required)
{
    static const struct device_type_query queries[] = {
        { CL_DEVICE_TYPE_CPU, "CL_DEVICE_TYPE_CPU" },
        { CL_DEVICE_TYPE_GPU, "CL_DEVICE_TYPE_GPU" },
        { CL_DEVICE_TYPE_ACCELERATOR, "CL_DEVICE_TYPE_ACCELERATOR" },
        { CL_DEVICE_TYPE_DEFAULT, "CL_DEVICE_TYPE_DEFAULT" },
        { CL_DEVICE_TYPE_ALL, "CL_DEVICE_TYPE_ALL" },
    };
    cl_uint all_count = 0;
    cl_device_id *all;
    size_t q;
    cl_uint i, j;

    CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &all_count));
    CHECK(all_count >= 1, "CL_DEVICE_TYPE_ALL finds %u device(s)", all_count);
    all = calloc(all_count, sizeof *all);
    CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, all_count, all, NULL));

    for (q = 0; q < COUNT(queries); q++) {
        cl_uint count = 0;
        cl_device_id *found;
        cl_int err = clGetDeviceIDs(platform, queries[q].type, 0, NULL, &count);
        int must_find = all_types_required || queries[q].type == CL_DEVICE_TYPE_ALL ||
                        queries[q].type == CL_DEVICE_TYPE_DEFAULT;
        if (err == CL_DEVICE_NOT_FOUND && !must_find) {
            printf("info: %s finds no device (allowed without HOSTS_ALL_DEVICE_TYPES=1)\n",
                   queries[q].name);
            continue;
        }
        if (!CHECK(err == CL_SUCCESS && count >= 1, "clGetDeviceIDs(%s) finds a device (%s, %u)",
                   queries[q].name, cl_error_name(err), count))
            continue;
        found = calloc(count, sizeof *found);
        CL(clGetDeviceIDs(platform, queries[q].type, count, found, NULL));
        for (i = 0; i < count; i++) {
            int listed = 0;
            cl_device_type type = 0;
            for (j = 0; j < all_count; j++)
                listed |= found[i] == all[j];
            CHECK(listed, "device %u of %s is also a device of CL_DEVICE_TYPE_ALL", i,
                  queries[q].name);
            CL(clGetDeviceInfo(found[i], CL_DEVICE_TYPE, sizeof type, &type, NULL));
            if (queries[q].type != CL_DEVICE_TYPE_ALL && queries[q].type != CL_DEVICE_TYPE_DEFAULT)
                CHECK((type & queries[q].type) != 0,
                      "the CL_DEVICE_TYPE of device %u of %s (0x%llx) includes that type", i,
                      queries[q].name, (unsigned long long)type);
        }
        free(found);
    }
    {
        /* num_entries smaller than the number of devices: the first ones, no overflow. */
        cl_device_id first[2] = { NULL, (cl_device_id)&first };
        CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, first, NULL));
        CHECK(first[0] == all[0] && first[1] == (cl_device_id)&first,
              "clGetDeviceIDs(num_entries=1) writes exactly the first device");
    }
    free(all);
}

static void check_device_parameters(cl_platform_id platform, cl_device_id device)
{
    cl_uint dimensions = device_uint(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    char extensions[8192] = "";
    size_t i;
    device_string(device, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);

    for (i = 0; i < COUNT(device_parameters); i++) {
        const struct parameter *p = &device_parameters[i];
        size_t size = 0, returned = 0;
        char *value;
        cl_int err = clGetDeviceInfo(device, p->param, 0, NULL, &size);
        if (!CHECK(err == CL_SUCCESS, "clGetDeviceInfo(%s) answers its size (%s)", p->name,
                   cl_error_name(err)))
            continue;
        value = calloc(size + 1, 1);
        if (size > 0)
            CL(clGetDeviceInfo(device, p->param, size, value, &returned));
        else
            returned = 0;
        CHECK(returned == size && size_fits(p->kind, size, value, dimensions),
              "clGetDeviceInfo(%s): %zu bytes, as its size query said and its type needs",
              p->name, size);
        if (p->kind == KIND_STRING)
            printf("info: %s = \"%s\"\n", p->name, value);
        free(value);
    }
    {
        /* A destination too small for the value. */
        cl_uchar one_byte;
        CHECK_CODE(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof one_byte, &one_byte, NULL),
                   CL_INVALID_VALUE);
    }

    /* The values: what the 1.2 specification (table 4.3) requires of a full-profile device. */
    {
        cl_device_type type = device_ulong(device, CL_DEVICE_TYPE);
        cl_platform_id owner = NULL;
        cl_device_id parent = (cl_device_id)&owner;
        size_t *sizes = calloc(dimensions, sizeof *sizes);
        size_t max_group = device_size(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
        cl_ulong global = device_ulong(device, CL_DEVICE_GLOBAL_MEM_SIZE);
        cl_ulong alloc = device_ulong(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        cl_uint address_bits = device_uint(device, CL_DEVICE_ADDRESS_BITS);
        cl_ulong single = device_ulong(device, CL_DEVICE_SINGLE_FP_CONFIG);
        cl_ulong queue = device_ulong(device, CL_DEVICE_QUEUE_PROPERTIES);
        cl_ulong capabilities = device_ulong(device, CL_DEVICE_EXECUTION_CAPABILITIES);
        cl_uint local_type = device_uint(device, CL_DEVICE_LOCAL_MEM_TYPE);
        cl_uint cache_type = device_uint(device, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE);
        char profile[64] = "", version[256] = "", c_version[256] = "", name[256] = "";
        cl_uint d;

        device_string(device, CL_DEVICE_PROFILE, profile, sizeof profile);
        device_string(device, CL_DEVICE_VERSION, version, sizeof version);
        device_string(device, CL_DEVICE_OPENCL_C_VERSION, c_version, sizeof c_version);
        device_string(device, CL_DEVICE_NAME, name, sizeof name);

        CHECK((type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR |
                       CL_DEVICE_TYPE_CUSTOM)) != 0,
              "CL_DEVICE_TYPE (0x%llx) names a kind of device", (unsigned long long)type);
        CHECK(strlen(name) > 0, "the device has a name");
        CHECK(strcmp(profile, "FULL_PROFILE") == 0 || strcmp(profile, "EMBEDDED_PROFILE") == 0,
              "CL_DEVICE_PROFILE is FULL_PROFILE or EMBEDDED_PROFILE (%s)", profile);
        CHECK(version_number(version, "OpenCL ") >= 12, "CL_DEVICE_VERSION is at least OpenCL 1.2 (%s)", version);
        CHECK(version_number(c_version, "OpenCL C ") >= 12,
              "CL_DEVICE_OPENCL_C_VERSION is at least OpenCL C 1.2 (%s)", c_version);
        CL(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof owner, &owner, NULL));
        CHECK(owner == platform, "CL_DEVICE_PLATFORM is the platform the device came from");
        CL(clGetDeviceInfo(device, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent, NULL));
        CHECK(parent == NULL, "CL_DEVICE_PARENT_DEVICE of a root device is NULL");
        CHECK(device_uint(device, CL_DEVICE_REFERENCE_COUNT) == 1,
              "CL_DEVICE_REFERENCE_COUNT of a root device is 1");
        CHECK(device_uint(device, CL_DEVICE_AVAILABLE) == CL_TRUE, "the device is available");
        CHECK(device_uint(device, CL_DEVICE_COMPILER_AVAILABLE) == CL_TRUE,
              "the device has a compiler (required of a full profile)");
        CHECK(device_uint(device, CL_DEVICE_LINKER_AVAILABLE) == CL_TRUE,
              "the device has a linker (required when it has a compiler)");
        CHECK(device_uint(device, CL_DEVICE_MAX_COMPUTE_UNITS) >= 1, "at least one compute unit");
        CHECK(dimensions >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS >= 3 (%u)", dimensions);
        CHECK(max_group >= 1, "CL_DEVICE_MAX_WORK_GROUP_SIZE >= 1 (%zu)", max_group);
        CL(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dimensions * sizeof *sizes, sizes, NULL));
        for (d = 0; d < dimensions; d++)
            CHECK(sizes[d] >= (d < 3 ? 1u : 0u) && sizes[d] <= (size_t)-1,
                  "CL_DEVICE_MAX_WORK_ITEM_SIZES[%u] = %zu", d, sizes[d]);
        CHECK(sizes[0] >= 1 && sizes[0] <= max_group * 65536,
              "the largest work-group dimension is sane against the largest group");
        CHECK(address_bits == 32 || address_bits == 64, "CL_DEVICE_ADDRESS_BITS is 32 or 64 (%u)",
              address_bits);
        CHECK(global > 0, "CL_DEVICE_GLOBAL_MEM_SIZE > 0 (%llu)", (unsigned long long)global);
        CHECK(alloc > 0 && alloc <= global, "0 < CL_DEVICE_MAX_MEM_ALLOC_SIZE <= global memory (%llu)",
              (unsigned long long)alloc);
        CHECK(alloc >= global / 4 || alloc >= 128u * 1024 * 1024,
              "CL_DEVICE_MAX_MEM_ALLOC_SIZE >= max(global/4, 128 MiB) (full profile)");
        CHECK(device_uint(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 8 * 128,
              "CL_DEVICE_MEM_BASE_ADDR_ALIGN >= 1024 bits, the size of long16");
        CHECK(device_size(device, CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024, "CL_DEVICE_MAX_PARAMETER_SIZE >= 1024");
        CHECK(device_ulong(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 * 1024,
              "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE >= 64 KiB");
        CHECK(device_uint(device, CL_DEVICE_MAX_CONSTANT_ARGS) >= 8, "CL_DEVICE_MAX_CONSTANT_ARGS >= 8");
        CHECK(device_ulong(device, CL_DEVICE_LOCAL_MEM_SIZE) >= 32 * 1024, "CL_DEVICE_LOCAL_MEM_SIZE >= 32 KiB");
        CHECK(local_type == CL_LOCAL || local_type == CL_GLOBAL, "CL_DEVICE_LOCAL_MEM_TYPE is CL_LOCAL or CL_GLOBAL");
        CHECK(cache_type == CL_NONE || cache_type == CL_READ_ONLY_CACHE || cache_type == CL_READ_WRITE_CACHE,
              "CL_DEVICE_GLOBAL_MEM_CACHE_TYPE is NONE, READ_ONLY or READ_WRITE");
        CHECK((single & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN)) == (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN),
              "CL_DEVICE_SINGLE_FP_CONFIG has at least ROUND_TO_NEAREST | INF_NAN");
        if (has_extension(extensions, "cl_khr_fp64"))
            CHECK((device_ulong(device, CL_DEVICE_DOUBLE_FP_CONFIG) &
                   (CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF |
                    CL_FP_INF_NAN | CL_FP_DENORM)) ==
                      (CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF |
                       CL_FP_INF_NAN | CL_FP_DENORM),
                  "with cl_khr_fp64, CL_DEVICE_DOUBLE_FP_CONFIG has the required flags");
        else
            CHECK(device_ulong(device, CL_DEVICE_DOUBLE_FP_CONFIG) == 0,
                  "without cl_khr_fp64, CL_DEVICE_DOUBLE_FP_CONFIG is 0");
        if (has_extension(extensions, "cl_khr_fp64"))
            CHECK(device_uint(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE) >= 1,
                  "with cl_khr_fp64, the preferred double vector width is at least 1");
        CHECK(device_uint(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT) >= 1 &&
                  device_uint(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT) >= 1,
              "float vector widths are at least 1");
        CHECK((queue & CL_QUEUE_PROFILING_ENABLE) != 0, "CL_DEVICE_QUEUE_PROPERTIES includes profiling");
        CHECK((capabilities & CL_EXEC_KERNEL) != 0, "CL_DEVICE_EXECUTION_CAPABILITIES includes CL_EXEC_KERNEL");
        CHECK(device_size(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION) >= 1,
              "CL_DEVICE_PROFILING_TIMER_RESOLUTION >= 1 ns");
        CHECK(device_uint(device, CL_DEVICE_ENDIAN_LITTLE) == CL_TRUE || device_uint(device, CL_DEVICE_ENDIAN_LITTLE) == CL_FALSE,
              "CL_DEVICE_ENDIAN_LITTLE is a cl_bool");
        CHECK(has_extension(extensions, "cl_khr_global_int32_base_atomics") &&
                  has_extension(extensions, "cl_khr_local_int32_base_atomics") &&
                  has_extension(extensions, "cl_khr_byte_addressable_store"),
              "the extensions 1.2 made core are listed (int32 atomics, byte-addressable store)");
        if (device_uint(device, CL_DEVICE_IMAGE_SUPPORT)) {
            CHECK(device_uint(device, CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128, "with images: >= 128 read image args");
            CHECK(device_uint(device, CL_DEVICE_MAX_WRITE_IMAGE_ARGS) >= 8, "with images: >= 8 write image args");
            CHECK(device_size(device, CL_DEVICE_IMAGE2D_MAX_WIDTH) >= 8192 &&
                      device_size(device, CL_DEVICE_IMAGE2D_MAX_HEIGHT) >= 8192,
                  "with images: 2-D images up to 8192 x 8192");
            CHECK(device_size(device, CL_DEVICE_IMAGE3D_MAX_WIDTH) >= 2048 &&
                      device_size(device, CL_DEVICE_IMAGE3D_MAX_HEIGHT) >= 2048 &&
                      device_size(device, CL_DEVICE_IMAGE3D_MAX_DEPTH) >= 2048,
                  "with images: 3-D images up to 2048^3");
            CHECK(device_size(device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE) >= 65536, "with images: 1-D buffer images of 65536");
            CHECK(device_size(device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE) >= 2048, "with images: arrays of 2048");
            CHECK(device_uint(device, CL_DEVICE_MAX_SAMPLERS) >= 16, "with images: >= 16 samplers");
        } else {
            printf("info: the device has no image support\n");
        }
        free(sizes);
    }
}

int main(void)
{
    cl_uint count = 0;
    cl_platform_id *platforms;
    cl_device_id device;
    cl_uint p;
    const char *all_types = getenv("HOSTS_ALL_DEVICE_TYPES");
    int all_types_required = all_types != NULL && strcmp(all_types, "1") == 0;

    CL(clGetPlatformIDs(0, NULL, &count));
    CHECK(count >= 1, "clGetPlatformIDs finds %u platform(s)", count);
    if (count == 0)
        return hosts_finish("platform");
    platforms = calloc(count, sizeof *platforms);
    CL(clGetPlatformIDs(count, platforms, NULL));
    /* clGetPlatformIDs(0, NULL, NULL) is CL_INVALID_VALUE by the specification, but through
     * the ICD loader the loader answers it, not the platform (and Oclgrind's runtime, used
     * without a loader, returns CL_SUCCESS): not checked here. */

    for (p = 0; p < count; p++) {
        printf("platform %u\n", p);
        check_platform(platforms[p]);
    }
    /* Device queries on the first platform: the one the other programs use. */
    check_device_types(platforms[0], all_types_required);
    CL(clGetDeviceIDs(platforms[0], CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    check_device_parameters(platforms[0], device);
    free(platforms);
    return hosts_finish("platform");
}
