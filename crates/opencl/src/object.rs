//! OpenCL objects as the host program sees them: opaque handles.
//!
//! Every handle points at an [`Obj`], whose first field is the ICD dispatch table: the loader
//! reads that pointer to find which platform's function to call, so the layout is fixed by the
//! ICD convention. Behind it are the reference count the API's retain/release calls manage and
//! the object itself.
//!
//! Host programs pass stale and garbage handles; the specification wants `CL_INVALID_*` for
//! them, not a crash. Every live handle is therefore registered with its kind, and every entry
//! point looks a handle up before touching it ([`Obj::get`]). A released handle leaves the
//! registry before its memory is freed, so a later call with it is refused.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use crate::api::DISPATCH;

/// What a handle is; part of the registry so that a queue is never taken for a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Platform,
    Device,
    Context,
    Queue,
    Mem,
    Sampler,
    Program,
    Kernel,
    Event,
}

/// Types that live behind a handle.
pub trait Object: Sized + Send + Sync + 'static {
    const KIND: Kind;
    /// The status code for a handle of this kind that is not valid.
    const INVALID: i32;
}

/// A handle's target: the dispatch table first (ICD layout), then the reference count.
#[repr(C)]
pub struct Obj<T> {
    dispatch: *const c_void,
    refs: AtomicU32,
    pub inner: T,
}

// The dispatch pointer is a pointer to an immutable static table.
unsafe impl<T: Send> Send for Obj<T> {}
unsafe impl<T: Sync> Sync for Obj<T> {}

static LIVE: Mutex<Option<HashMap<usize, Kind>>> = Mutex::new(None);

fn with_live<R>(f: impl FnOnce(&mut HashMap<usize, Kind>) -> R) -> R {
    let mut guard = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(HashMap::new))
}

impl<T: Object> Obj<T> {
    /// A new handle with one reference, registered as live.
    pub fn create(inner: T) -> *mut Obj<T> {
        let obj = Box::new(Obj { dispatch: DISPATCH.as_ptr(), refs: AtomicU32::new(1), inner });
        let ptr = Box::into_raw(obj);
        with_live(|live| live.insert(ptr as usize, T::KIND));
        ptr
    }

    /// The object behind a handle, or the kind's `CL_INVALID_*` code when the handle is NULL,
    /// released or of another kind.
    // Safe to call with any pointer: it is dereferenced only when the registry knows it.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn get<'a>(handle: *mut Obj<T>) -> Result<&'a Obj<T>, i32> {
        if handle.is_null() {
            return Err(T::INVALID);
        }
        let known = with_live(|live| live.get(&(handle as usize)).copied());
        if known == Some(T::KIND) {
            // Registered handles point at live boxes (see `release`).
            Ok(unsafe { &*handle })
        } else {
            Err(T::INVALID)
        }
    }

    /// Whether `handle` is a live handle of this kind.
    pub fn is_valid(handle: *mut Obj<T>) -> bool {
        Obj::get(handle).is_ok()
    }

    pub fn retain(handle: *mut Obj<T>) -> i32 {
        match Obj::get(handle) {
            Ok(obj) => {
                obj.refs.fetch_add(1, Ordering::AcqRel);
                crate::cl::CL_SUCCESS
            }
            Err(code) => code,
        }
    }

    /// Drops one reference; the last one unregisters and frees the object, returning it so the
    /// caller can release what it held.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn release(handle: *mut Obj<T>) -> Result<Option<T>, i32> {
        let obj = Obj::get(handle)?;
        if obj.refs.fetch_sub(1, Ordering::AcqRel) != 1 {
            return Ok(None);
        }
        with_live(|live| live.remove(&(handle as usize)));
        let boxed = unsafe { Box::from_raw(handle) };
        Ok(Some(boxed.inner))
    }

    pub fn ref_count(&self) -> u32 {
        self.refs.load(Ordering::Acquire)
    }
}

/// A raw handle that may cross threads: the objects behind handles are `Sync`, and the
/// runtime keeps them alive (by an implicit retain) while commands that use them are pending.
pub struct Ptr<T>(pub *mut Obj<T>);

unsafe impl<T> Send for Ptr<T> {}
unsafe impl<T> Sync for Ptr<T> {}

impl<T> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}

impl<T> PartialEq for Ptr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<T: Object> Ptr<T> {
    /// The object; the caller holds a reference that keeps it alive.
    pub fn obj<'a>(self) -> &'a Obj<T> {
        unsafe { &*self.0 }
    }
}
