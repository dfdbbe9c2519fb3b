// EXPECT-EXIT: 0
// EXPECT-OUTPUT: context: all checks passed
/* Contexts: clCreateContext with CL_CONTEXT_PLATFORM and a notification callback,
 * clCreateContextFromType, clGetContextInfo (devices, number of devices, properties,
 * reference count), clRetainContext/clReleaseContext, and a context kept alive by the
 * objects made in it after the program released its own reference.
 */
#include "common.h"

struct notify_data {
    int calls;
    int wrong_user_data;
};

static struct notify_data notifications;

/* Implementations may call it on errors (not all do); when called, user_data must be the
 * pointer given with the callback. Oclgrind 21.10 passes it as private_info instead. */
static void CL_CALLBACK notify(const char *message, const void *info, size_t size, void *user_data)
{
    (void)info;
    (void)size;
    notifications.calls++;
    if (user_data != &notifications)
        notifications.wrong_user_data++;
    printf("info: context notification: %s\n", message ? message : "(null)");
}

static cl_uint context_reference_count(cl_context context)
{
    cl_uint count = 0;
    CL(clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL));
    return count;
}

/* Asks CL_CONTEXT_DEVICES and CL_CONTEXT_NUM_DEVICES and checks both against `device`. */
static void check_devices(cl_context context, cl_device_id device, const char *how)
{
    size_t size = 0;
    cl_uint count = 0;
    cl_device_id *devices;
    cl_uint i;
    int found = 0;

    CL(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, NULL));
    CL(clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size));
    CHECK(count >= 1, "%s: CL_CONTEXT_NUM_DEVICES >= 1 (%u)", how, count);
    CHECK(size == count * sizeof(cl_device_id),
          "%s: CL_CONTEXT_DEVICES is CL_CONTEXT_NUM_DEVICES handles (%zu bytes)", how, size);
    devices = calloc(count + 1, sizeof *devices);
    CL(clGetContextInfo(context, CL_CONTEXT_DEVICES, size, devices, NULL));
    for (i = 0; i < count; i++)
        found |= devices[i] == device;
    CHECK(found, "%s: the context's devices include the device", how);
    free(devices);
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    cl_context_properties properties[3];
    cl_context context;

    hosts_first_device(&platform, &device);
    properties[0] = CL_CONTEXT_PLATFORM;
    properties[1] = (cl_context_properties)platform;
    properties[2] = 0;

    /* clCreateContext with a platform property, a callback and its user data. */
    context = clCreateContext(properties, 1, &device, notify, &notifications, &err);
    CHECK_ERR(err, CL_SUCCESS, "clCreateContext(CL_CONTEXT_PLATFORM, notify, user_data)");
    CL_OK(err, "clCreateContext");
    check_devices(context, device, "clCreateContext");
    {
        cl_context_properties returned[8];
        size_t size = 0;
        memset(returned, 0xff, sizeof returned);
        CL(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
        CHECK(size == sizeof properties, "CL_CONTEXT_PROPERTIES has the 3 values given (%zu bytes)", size);
        if (size <= sizeof returned) {
            CL(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, size, returned, NULL));
            CHECK(returned[0] == CL_CONTEXT_PLATFORM && returned[1] == (cl_context_properties)platform &&
                      returned[2] == 0,
                  "CL_CONTEXT_PROPERTIES returns {CL_CONTEXT_PLATFORM, platform, 0}");
        }
    }
    CHECK(context_reference_count(context) == 1, "a new context's reference count is 1");
    CL(clRetainContext(context));
    CHECK(context_reference_count(context) == 2, "clRetainContext makes it 2");
    CL(clReleaseContext(context));
    CHECK(context_reference_count(context) == 1, "clReleaseContext makes it 1 again");
    {
        cl_uint count = 0;
        CHECK_CODE(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, 1, &count, NULL), CL_INVALID_VALUE);
        CHECK_CODE(clGetContextInfo(context, 0x7fff, sizeof count, &count, NULL), CL_INVALID_VALUE);
    }

    /* The context outlives the program's reference while a queue and a buffer hold it. */
    {
        cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
        cl_int values[4] = { 1, 2, 3, 4 }, back[4] = { 0, 0, 0, 0 };
        cl_mem buffer;
        cl_context owner = NULL;
        CL_OK(err, "clCreateCommandQueue");
        buffer = hosts_buffer(context, CL_MEM_READ_WRITE, sizeof values, NULL);
        CL(clReleaseContext(context));
        CL(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL));
        CHECK(owner == context, "CL_MEM_CONTEXT still names the released context");
        CL(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL));
        CL(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
        CHECK(memcmp(values, back, sizeof values) == 0,
              "a queue and a buffer work after the program released their context");
        CL(clReleaseMemObject(buffer));
        CL(clReleaseCommandQueue(queue));
    }

    /* clCreateContextFromType, for ALL and for DEFAULT. */
    {
        static const cl_device_type types[2] = { CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_DEFAULT };
        static const char *names[2] = { "CL_DEVICE_TYPE_ALL", "CL_DEVICE_TYPE_DEFAULT" };
        int t;
        for (t = 0; t < 2; t++) {
            char how[64];
            cl_context typed = clCreateContextFromType(properties, types[t], notify, &notifications, &err);
            snprintf(how, sizeof how, "clCreateContextFromType(%s)", names[t]);
            if (!CHECK(err == CL_SUCCESS && typed != NULL, "%s makes a context (%s)", how, cl_error_name(err)))
                continue;
            if (types[t] == CL_DEVICE_TYPE_ALL)
                check_devices(typed, device, how);
            else {
                cl_uint count = 0;
                CL(clGetContextInfo(typed, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, NULL));
                CHECK(count >= 1, "%s has a device", how);
            }
            CHECK(context_reference_count(typed) == 1, "%s: reference count 1", how);
            CL(clReleaseContext(typed));
        }
    }

    /* A context with no properties takes an implementation-defined platform; it must work. */
    {
        cl_context plain = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
        size_t size = 12345;
        CHECK_ERR(err, CL_SUCCESS, "clCreateContext(NULL properties)");
        if (err == CL_SUCCESS) {
            check_devices(plain, device, "clCreateContext(NULL properties)");
            CL(clGetContextInfo(plain, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
            /* The specification allows 0 bytes or the single terminating 0. */
            CHECK(size == 0 || size == sizeof(cl_context_properties),
                  "CL_CONTEXT_PROPERTIES of a context made without properties is empty (%zu bytes)", size);
            CL(clReleaseContext(plain));
        }
    }
    printf("info: the notification callback ran %d time(s) (errors may call it; none must)\n",
           notifications.calls);
    if (hosts_platform_is(platform, "Oclgrind"))
        hosts_skip("user_data of the notification callback (Oclgrind passes it as private_info)");
    else
        CHECK(notifications.wrong_user_data == 0,
              "every notification received the user_data given with the callback");
    return hosts_finish("context");
}
