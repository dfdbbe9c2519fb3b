//! What every owned isl object shares: a raw pointer the wrapper owns, its context, copying
//! for `__isl_take` arguments, freeing on drop and printing in isl notation.

/// Declares an owning wrapper around one isl object type.
macro_rules! isl_object {
    ($(#[$doc:meta])* $name:ident, $raw:ty, $copy:path, $free:path, $to_str:path) => {
        $(#[$doc])*
        pub struct $name {
            raw: *mut $raw,
            ctx: $crate::context::Context,
        }

        impl $name {
            /// Wraps a result isl gave us; null means the operation failed.
            pub(crate) fn from_raw(
                ctx: &$crate::context::Context,
                raw: *mut $raw,
                operation: &'static str,
            ) -> Result<$name, $crate::error::IslError> {
                if raw.is_null() {
                    Err(ctx.take_error(operation))
                } else {
                    Ok($name { raw, ctx: ctx.clone() })
                }
            }

            /// A new reference for an `__isl_take` argument; `self` stays valid.
            pub(crate) fn take_copy(&self) -> *mut $raw {
                // SAFETY: `raw` is live while `self` is; isl copies by reference count.
                unsafe { $copy(self.raw) }
            }

            /// The pointer for an `__isl_keep` argument.
            pub(crate) fn keep(&self) -> *mut $raw {
                self.raw
            }

            /// The context this object belongs to.
            pub fn context(&self) -> &$crate::context::Context {
                &self.ctx
            }

            /// Checks that `other` was made in the same context, as isl requires.
            pub(crate) fn same_context(
                &self,
                other: &$crate::context::Context,
                operation: &'static str,
            ) -> Result<(), $crate::error::IslError> {
                if self.ctx.same_as(other) {
                    Ok(())
                } else {
                    Err($crate::error::IslError::ForeignContext { operation })
                }
            }
        }

        impl Clone for $name {
            fn clone(&self) -> $name {
                $name { raw: self.take_copy(), ctx: self.ctx.clone() }
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: we own one reference to `raw`.
                unsafe { $free(self.raw) };
            }
        }

        impl std::fmt::Display for $name {
            /// isl notation, which [`crate::Context`] parses back.
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                // SAFETY: keep argument; the string is ours to free.
                let text = unsafe { $crate::context::owned_string($to_str(self.raw)) };
                f.write_str(text.as_deref().unwrap_or("<isl could not print>"))
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({})", stringify!($name), self)
            }
        }
    };
}

pub(crate) use isl_object;
