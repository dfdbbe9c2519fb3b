//! Scratch directories for tests that write files.

use std::path::{Path, PathBuf};

/// An empty directory of its own, removed with everything in it when dropped.
///
/// The name starts with `clmap-<label>-`, so a directory left behind by a killed test says
/// which test made it; the rest is unique, so tests running at the same time never share one.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// # Panics
    /// When the system's temporary directory cannot be written.
    pub fn new(label: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("clmap-{label}-"))
            .tempdir()
            .unwrap_or_else(|e| panic!("a scratch directory for {label}: {e}"));
        Scratch { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the directory.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `contents` to `name` inside the directory (creating parent directories) and
    /// returns its path.
    ///
    /// # Panics
    /// When the file cannot be written.
    pub fn write(&self, name: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("create {}: {e}", parent.display()));
        }
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }
}

/// A scratch directory is used where a path is: `&scratch` passes as `&Path`.
impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.dir.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.dir.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_distinct_and_removed_on_drop() {
        let a = Scratch::new("testkit");
        let b = Scratch::new("testkit");
        assert_ne!(a.path(), b.path());
        let file = a.write("sub/file.txt", "text");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "text");
        let kept = a.path().to_path_buf();
        assert!(kept.file_name().unwrap().to_string_lossy().starts_with("clmap-testkit-"));
        drop(a);
        assert!(!kept.exists(), "the directory outlived its Scratch");
        assert!(b.path().is_dir());
    }
}
