//! Command queues, and the one path every `clEnqueue*` call takes into the scheduler.

use std::ffi::c_void;
use std::sync::Mutex;

use crate::cl::*;
use crate::event::{create_event, wait_list, Event};
use crate::info::{created, Info};
use crate::object::{Kind, Obj, Object, Ptr};
use crate::platform::the_device;
use crate::scheduler::{self, Command, Work};
use crate::{cl_command_queue, cl_context, cl_device_id, cl_event};

pub struct Queue {
    pub context: cl_context,
    pub properties: u64,
    /// The last barrier of an out-of-order queue: later commands wait for it.
    pub last_barrier: Mutex<Option<Ptr<Event>>>,
}

unsafe impl Send for Queue {}
unsafe impl Sync for Queue {}

impl Object for Queue {
    const KIND: Kind = Kind::Queue;
    const INVALID: i32 = CL_INVALID_COMMAND_QUEUE;
}

impl Queue {
    pub fn out_of_order(&self) -> bool {
        self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0
    }
}

pub unsafe extern "C" fn create_command_queue(
    context: cl_context,
    device: cl_device_id,
    properties: u64,
    errcode_ret: *mut i32,
) -> cl_command_queue {
    let result = (|| {
        Obj::get(context)?;
        if device != the_device() {
            return Err(CL_INVALID_DEVICE);
        }
        if properties & !(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) != 0 {
            return Err(CL_INVALID_VALUE);
        }
        crate::context::retain_context(context);
        Ok(Obj::create(Queue { context, properties, last_barrier: Mutex::new(None) }))
    })();
    created(result, errcode_ret)
}

pub unsafe extern "C" fn retain_command_queue(queue: cl_command_queue) -> i32 {
    Obj::retain(queue)
}

pub unsafe extern "C" fn release_command_queue(queue: cl_command_queue) -> i32 {
    if Obj::get(queue).is_ok_and(|q| q.ref_count() == 1) {
        // Releasing the last reference flushes and waits, as the specification asks.
        scheduler::finish(Ptr(queue));
    }
    drop_queue_ref(queue)
}

/// Drops a reference without waiting: for the runtime's own references (an event's), which
/// are dropped while the scheduler runs commands and must not wait for it.
pub unsafe fn drop_queue_ref(queue: cl_command_queue) -> i32 {
    match Obj::release(queue) {
        Ok(Some(q)) => {
            if let Some(b) = q.last_barrier.lock().unwrap_or_else(|e| e.into_inner()).take() {
                crate::event::release_event(b.0);
            }
            crate::context::release_context(q.context);
            CL_SUCCESS
        }
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn get_command_queue_info(
    queue: cl_command_queue,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let q = try_cl!(Obj::get(queue));
    let info = match param {
        CL_QUEUE_CONTEXT => Info::ptr(q.inner.context),
        CL_QUEUE_DEVICE => Info::ptr(the_device()),
        CL_QUEUE_REFERENCE_COUNT => Info::uint(q.ref_count()),
        CL_QUEUE_PROPERTIES => Info::ulong(q.inner.properties),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

pub unsafe extern "C" fn set_command_queue_property(
    queue: cl_command_queue,
    _properties: u64,
    _enable: u32,
    _old: *mut u64,
) -> i32 {
    if Obj::get(queue).is_err() {
        return CL_INVALID_COMMAND_QUEUE;
    }
    crate::unsupported("clSetCommandQueueProperty", CL_INVALID_OPERATION)
}

pub unsafe extern "C" fn flush(queue: cl_command_queue) -> i32 {
    // Commands run when enqueued (or when what they wait for completes): nothing to flush.
    match Obj::get(queue) {
        Ok(_) => CL_SUCCESS,
        Err(code) => code,
    }
}

pub unsafe extern "C" fn finish(queue: cl_command_queue) -> i32 {
    match Obj::get(queue) {
        Ok(_) => {
            scheduler::finish(Ptr(queue));
            CL_SUCCESS
        }
        Err(code) => code,
    }
}

/// How a command enters its queue.
pub struct Enqueue {
    pub command_type: u32,
    pub blocking: bool,
    pub waits_for_queue: bool,
    pub is_barrier: bool,
}

impl Enqueue {
    pub fn new(command_type: u32) -> Enqueue {
        Enqueue { command_type, blocking: false, waits_for_queue: false, is_barrier: false }
    }
    pub fn blocking(mut self, blocking: u32) -> Enqueue {
        self.blocking = blocking != 0;
        self
    }
}

/// Checks the queue and wait list, queues `work` and, for blocking calls, waits for it.
/// `event_out` receives the command's event when the host asked for one.
pub unsafe fn enqueue(
    queue: cl_command_queue,
    how: Enqueue,
    num_events: u32,
    events: *const cl_event,
    event_out: *mut cl_event,
    work: Work,
) -> i32 {
    let q = try_cl!(Obj::get(queue));
    let deps = try_cl!(wait_list(q.inner.context, num_events, events));
    let event = create_event(q.inner.context, queue, how.command_type, CL_QUEUED as i32);
    if !event_out.is_null() {
        Obj::retain(event);
        *event_out = event;
    }
    if how.blocking {
        Obj::retain(event);
    }
    scheduler::submit(Command {
        queue: Ptr(queue),
        event: Ptr(event),
        deps,
        work,
        waits_for_queue: how.waits_for_queue,
        is_barrier: how.is_barrier,
    });
    if how.blocking {
        scheduler::wait_event(Ptr(event));
        let status = Obj::get(event).map(|e| e.inner.status()).unwrap_or(CL_SUCCESS);
        crate::event::release_event(event);
        if status < 0 {
            return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
        }
    }
    CL_SUCCESS
}

/// References to memory objects a command holds until it has run, or until it is dropped
/// without running (a call that failed its checks), so neither path leaks them.
struct Held(Vec<Ptr<crate::memory::Mem>>);

impl Drop for Held {
    fn drop(&mut self) {
        for m in &self.0 {
            unsafe { crate::memory::release_mem_object(m.0) };
        }
    }
}

/// [`enqueue`] for a command on memory objects: `work` may use `mems` until it returns.
pub unsafe fn enqueue_holding(
    queue: cl_command_queue,
    how: Enqueue,
    mems: &[crate::cl_mem],
    num_events: u32,
    events: *const cl_event,
    event_out: *mut cl_event,
    work: impl FnOnce() -> i32 + Send + 'static,
) -> i32 {
    for m in mems {
        Obj::retain(*m);
    }
    let held = Held(mems.iter().map(|m| Ptr(*m)).collect());
    enqueue(
        queue,
        how,
        num_events,
        events,
        event_out,
        Box::new(move || {
            let code = work();
            drop(held);
            code
        }),
    )
}

pub unsafe extern "C" fn enqueue_marker_with_wait_list(
    queue: cl_command_queue,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let how = Enqueue { waits_for_queue: num_events == 0, ..Enqueue::new(CL_COMMAND_MARKER) };
    enqueue(queue, how, num_events, events, event, Box::new(|| CL_SUCCESS))
}

pub unsafe extern "C" fn enqueue_barrier_with_wait_list(
    queue: cl_command_queue,
    num_events: u32,
    events: *const cl_event,
    event: *mut cl_event,
) -> i32 {
    let how = Enqueue {
        waits_for_queue: num_events == 0,
        is_barrier: true,
        ..Enqueue::new(CL_COMMAND_BARRIER)
    };
    enqueue(queue, how, num_events, events, event, Box::new(|| CL_SUCCESS))
}

pub unsafe extern "C" fn enqueue_marker(queue: cl_command_queue, event: *mut cl_event) -> i32 {
    if event.is_null() {
        return CL_INVALID_VALUE;
    }
    enqueue_marker_with_wait_list(queue, 0, std::ptr::null(), event)
}

pub unsafe extern "C" fn enqueue_barrier(queue: cl_command_queue) -> i32 {
    enqueue_barrier_with_wait_list(queue, 0, std::ptr::null(), std::ptr::null_mut())
}

pub unsafe extern "C" fn enqueue_wait_for_events(
    queue: cl_command_queue,
    num_events: u32,
    events: *const cl_event,
) -> i32 {
    if num_events == 0 || events.is_null() {
        return CL_INVALID_VALUE;
    }
    let how = Enqueue { is_barrier: true, ..Enqueue::new(CL_COMMAND_BARRIER) };
    enqueue(queue, how, num_events, events, std::ptr::null_mut(), Box::new(|| CL_SUCCESS))
}
