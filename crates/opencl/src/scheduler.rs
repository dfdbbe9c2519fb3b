//! When commands run.
//!
//! A command runs as soon as it may: at enqueue time, on the thread that enqueued it, when
//! its wait list has finished and (in an in-order queue) every earlier command of its queue
//! has run. Otherwise it waits here until the event it needs completes — a user event set by
//! the host, usually from another thread — and then runs on the thread that completed it.
//! One command runs at a time (the simulator itself uses every core for a kernel), which is a
//! legal order for any mix of queues.
//!
//! Event callbacks run after the scheduler's lock is released, so a callback may call the API
//! again (set another user event, enqueue more work).

use std::sync::{Condvar, Mutex, MutexGuard};

use crate::cl::*;
use crate::event::{now_ns, Event, EventCallback};
use crate::object::{Obj, Ptr};
use crate::queue::Queue;

/// What a command does when it runs; returns `CL_SUCCESS` or the error that ends it.
pub type Work = Box<dyn FnOnce() -> i32 + Send>;

pub struct Command {
    pub queue: Ptr<Queue>,
    pub event: Ptr<Event>,
    /// Events this command waits for; the command holds a reference to each.
    pub deps: Vec<Ptr<Event>>,
    pub work: Work,
    /// Barriers and markers without a wait list wait for everything queued before them.
    pub waits_for_queue: bool,
    /// A barrier: later commands of an out-of-order queue wait for it.
    pub is_barrier: bool,
}

struct Pending {
    commands: Vec<Command>,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending { commands: Vec::new() });
static CHANGED: Condvar = Condvar::new();

fn lock() -> MutexGuard<'static, Pending> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A callback that became due.
struct Due {
    event: Ptr<Event>,
    status: i32,
    callback: EventCallback,
    user: usize,
}

fn fire(due: Vec<Due>) {
    for d in due {
        unsafe { (d.callback)(d.event.0, d.status, d.user as *mut std::ffi::c_void) };
        unsafe { crate::event::release_event(d.event.0) };
    }
}

/// Moves an event to `status`, collecting the callbacks that became due (each holding a
/// reference to the event until it has run).
fn set_status(event: Ptr<Event>, status: i32, time_slot: Option<usize>, due: &mut Vec<Due>) {
    let ev = event.obj();
    let mut state = ev.inner.state.lock().unwrap_or_else(|e| e.into_inner());
    state.status = status;
    if let Some(slot) = time_slot {
        state.times[slot] = now_ns();
    }
    let mut keep = Vec::new();
    for (on, callback, user) in state.callbacks.drain(..) {
        if status <= on {
            Obj::retain(event.0);
            due.push(Due { event, status: if status < 0 { status } else { on }, callback, user });
        } else {
            keep.push((on, callback, user));
        }
    }
    state.callbacks = keep;
}

/// Queues a command and runs whatever can run.
pub fn submit(mut command: Command) {
    let mut due = Vec::new();
    {
        let mut pending = lock();
        let queue = command.queue.obj();
        if command.waits_for_queue {
            for earlier in pending.commands.iter().filter(|c| c.queue == command.queue) {
                Obj::retain(earlier.event.0);
                command.deps.push(earlier.event);
            }
        }
        if queue.inner.out_of_order() {
            let mut barrier = queue.inner.last_barrier.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(b) = *barrier {
                if !b.obj().inner.is_done() {
                    Obj::retain(b.0);
                    command.deps.push(b);
                }
            }
            if command.is_barrier {
                if let Some(old) = barrier.replace(command.event) {
                    unsafe { crate::event::release_event(old.0) };
                }
                Obj::retain(command.event.0);
            }
        }
        pending.commands.push(command);
        run_ready(&mut pending, &mut due);
    }
    CHANGED.notify_all();
    fire(due);
}

fn runnable(pending: &Pending, index: usize) -> bool {
    let command = &pending.commands[index];
    if !command.deps.iter().all(|d| d.obj().inner.is_done()) {
        return false;
    }
    command.queue.obj().inner.out_of_order()
        || !pending.commands[..index].iter().any(|c| c.queue == command.queue)
}

fn run_ready(pending: &mut Pending, due: &mut Vec<Due>) {
    while let Some(index) = (0..pending.commands.len()).find(|&i| runnable(pending, i)) {
        let command = pending.commands.remove(index);
        let failed_dep = command.deps.iter().any(|d| d.obj().inner.status() < 0);
        set_status(command.event, CL_SUBMITTED as i32, Some(1), due);
        set_status(command.event, CL_RUNNING as i32, Some(2), due);
        let code = if failed_dep {
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
        } else {
            (command.work)()
        };
        let status = if code == CL_SUCCESS { CL_COMPLETE as i32 } else { code.min(-1) };
        set_status(command.event, status, Some(3), due);
        for dep in command.deps {
            unsafe { crate::event::release_event(dep.0) };
        }
        // The scheduler's own reference to the command's event.
        unsafe { crate::event::release_event(command.event.0) };
    }
}

/// Blocks until `event` has finished.
pub fn wait_event(event: Ptr<Event>) {
    let mut pending = lock();
    while !event.obj().inner.is_done() {
        pending = CHANGED.wait(pending).unwrap_or_else(|e| e.into_inner());
    }
}

/// Blocks until no command of `queue` is waiting.
pub fn finish(queue: Ptr<Queue>) {
    let mut pending = lock();
    while pending.commands.iter().any(|c| c.queue == queue) {
        pending = CHANGED.wait(pending).unwrap_or_else(|e| e.into_inner());
    }
}

/// Sets a user event's status and runs the commands that waited for it.
pub fn complete_user_event(event: Ptr<Event>, status: i32) {
    let mut due = Vec::new();
    {
        let mut pending = lock();
        set_status(event, status, None, &mut due);
        run_ready(&mut pending, &mut due);
    }
    CHANGED.notify_all();
    fire(due);
}
