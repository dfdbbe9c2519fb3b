//! Events: the status of a command (or of a user event), its profiling times and callbacks.

use std::ffi::c_void;
use std::sync::Mutex;
use std::time::Instant;

use crate::cl::*;
use crate::info::{created, slice, Info};
use crate::object::{Kind, Obj, Object, Ptr};
use crate::queue::Queue;
use crate::scheduler;
use crate::{cl_command_queue, cl_context, cl_event};

pub type EventCallback = unsafe extern "C" fn(event: cl_event, status: i32, user: *mut c_void);

pub struct Event {
    pub context: cl_context,
    /// NULL for user events.
    pub queue: cl_command_queue,
    pub command_type: u32,
    pub state: Mutex<EventState>,
}

unsafe impl Send for Event {}
unsafe impl Sync for Event {}

pub struct EventState {
    /// `CL_QUEUED` … `CL_COMPLETE`, or a negative error code.
    pub status: i32,
    /// Nanoseconds on the platform's clock: queued, submitted, started, ended.
    pub times: [u64; 4],
    pub callbacks: Vec<(i32, EventCallback, usize)>,
}

impl Object for Event {
    const KIND: Kind = Kind::Event;
    const INVALID: i32 = CL_INVALID_EVENT;
}

/// Nanoseconds since the platform was loaded: the clock of profiling times.
pub fn now_ns() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

impl Event {
    pub fn new(
        context: cl_context,
        queue: cl_command_queue,
        command_type: u32,
        status: i32,
    ) -> Event {
        let t = now_ns();
        Event {
            context,
            queue,
            command_type,
            state: Mutex::new(EventState { status, times: [t, t, t, t], callbacks: Vec::new() }),
        }
    }

    pub fn status(&self) -> i32 {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).status
    }

    /// Whether the event has finished, successfully or not.
    pub fn is_done(&self) -> bool {
        self.status() <= CL_COMPLETE as i32
    }
}

/// Retains every event of a wait list after checking it, as commands hold their dependencies.
pub unsafe fn wait_list(
    context: cl_context,
    count: u32,
    events: *const cl_event,
) -> Result<Vec<Ptr<Event>>, i32> {
    if (count == 0) != events.is_null() {
        return Err(CL_INVALID_EVENT_WAIT_LIST);
    }
    let list = slice(events, count as usize);
    for e in list {
        let ev = Obj::get(*e).map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
        if !context.is_null() && ev.inner.context != context {
            return Err(CL_INVALID_CONTEXT);
        }
    }
    for e in list {
        Obj::retain(*e);
    }
    Ok(list.iter().map(|e| Ptr(*e)).collect())
}

pub unsafe extern "C" fn wait_for_events(count: u32, events: *const cl_event) -> i32 {
    if count == 0 || events.is_null() {
        return CL_INVALID_VALUE;
    }
    let list = slice(events, count as usize);
    let mut context = None;
    for e in list {
        match Obj::get(*e) {
            Ok(ev) => {
                if *context.get_or_insert(ev.inner.context) != ev.inner.context {
                    return CL_INVALID_CONTEXT;
                }
            }
            Err(code) => return code,
        }
    }
    let mut failed = false;
    for e in list {
        scheduler::wait_event(Ptr(*e));
        failed |= Obj::get(*e).map(|ev| ev.inner.status() < 0).unwrap_or(false);
    }
    if failed {
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    } else {
        CL_SUCCESS
    }
}

pub unsafe extern "C" fn get_event_info(
    event: cl_event,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let ev = try_cl!(Obj::get(event));
    let info = match param {
        CL_EVENT_COMMAND_QUEUE => Info::ptr(ev.inner.queue),
        CL_EVENT_CONTEXT => Info::ptr(ev.inner.context),
        CL_EVENT_COMMAND_TYPE => Info::uint(ev.inner.command_type),
        CL_EVENT_COMMAND_EXECUTION_STATUS => Info::int(ev.inner.status()),
        CL_EVENT_REFERENCE_COUNT => Info::uint(ev.ref_count()),
        _ => return CL_INVALID_VALUE,
    };
    info.write(size, value, size_ret)
}

pub unsafe extern "C" fn get_event_profiling_info(
    event: cl_event,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    let ev = try_cl!(Obj::get(event));
    if ev.inner.queue.is_null() {
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    }
    let profiling = Obj::<Queue>::get(ev.inner.queue)
        .map(|q| q.inner.properties & CL_QUEUE_PROFILING_ENABLE != 0)
        .unwrap_or(false);
    let state = ev.inner.state.lock().unwrap_or_else(|e| e.into_inner());
    if !profiling || state.status != CL_COMPLETE as i32 {
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    }
    let index = match param {
        CL_PROFILING_COMMAND_QUEUED => 0,
        CL_PROFILING_COMMAND_SUBMIT => 1,
        CL_PROFILING_COMMAND_START => 2,
        CL_PROFILING_COMMAND_END => 3,
        _ => return CL_INVALID_VALUE,
    };
    let t = state.times[index];
    drop(state);
    Info::ulong(t).write(size, value, size_ret)
}

pub unsafe extern "C" fn retain_event(event: cl_event) -> i32 {
    Obj::retain(event)
}

pub unsafe extern "C" fn release_event(event: cl_event) -> i32 {
    match Obj::release(event) {
        Ok(Some(ev)) => {
            if !ev.queue.is_null() {
                crate::queue::drop_queue_ref(ev.queue);
            }
            crate::context::release_context(ev.context);
            CL_SUCCESS
        }
        Ok(None) => CL_SUCCESS,
        Err(code) => code,
    }
}

/// A new event that holds its context and queue (released with it).
// The handles are only retained, which checks them against the registry first.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn create_event(
    context: cl_context,
    queue: cl_command_queue,
    command_type: u32,
    status: i32,
) -> cl_event {
    unsafe {
        crate::context::retain_context(context);
        if !queue.is_null() {
            crate::queue::retain_command_queue(queue);
        }
    }
    Obj::create(Event::new(context, queue, command_type, status))
}

pub unsafe extern "C" fn create_user_event(context: cl_context, errcode_ret: *mut i32) -> cl_event {
    let result = Obj::get(context)
        .map(|_| create_event(context, std::ptr::null_mut(), CL_COMMAND_USER, CL_SUBMITTED as i32));
    created(result, errcode_ret)
}

pub unsafe extern "C" fn set_user_event_status(event: cl_event, status: i32) -> i32 {
    let ev = try_cl!(Obj::get(event));
    if ev.inner.command_type != CL_COMMAND_USER {
        return CL_INVALID_EVENT;
    }
    if status > 0 {
        return CL_INVALID_VALUE;
    }
    if ev.inner.is_done() {
        return CL_INVALID_OPERATION;
    }
    scheduler::complete_user_event(Ptr(event), status);
    CL_SUCCESS
}

pub unsafe extern "C" fn set_event_callback(
    event: cl_event,
    on_status: i32,
    callback: Option<EventCallback>,
    user: *mut c_void,
) -> i32 {
    let ev = try_cl!(Obj::get(event));
    let Some(callback) = callback else { return CL_INVALID_VALUE };
    if ![CL_SUBMITTED as i32, CL_RUNNING as i32, CL_COMPLETE as i32].contains(&on_status) {
        return CL_INVALID_VALUE;
    }
    let fire_now = {
        let mut state = ev.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.status <= on_status {
            Some(state.status)
        } else {
            state.callbacks.push((on_status, callback, user as usize));
            None
        }
    };
    if let Some(status) = fire_now {
        // The status was already reached: the callback runs now, outside every lock.
        callback(event, if status < 0 { status } else { on_status }, user);
    }
    CL_SUCCESS
}
