//! Finding clang, opt, llvm-link and llc of one LLVM version, and libclc for NVPTX.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::error::LlvmError;

/// LLVM major versions tried when nothing is configured, newest first.
const KNOWN_MAJOR_VERSIONS: [u32; 7] = [20, 19, 18, 17, 16, 15, 14];

/// The libclc library for NVIDIA GPUs through OpenCL's `nvidiacl` environment.
const LIBCLC_FILE: &str = "nvptx64--nvidiacl.bc";

/// How long `--version` may take: a tool that cannot answer that is not usable.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// Where to find the tools and how to compile. Every path is optional: unset ones come from
/// the environment (`CLMAP_LLVM_BIN`, `CLMAP_LIBCLC`, `CLMAP_CLC_INCLUDE`) or the usual
/// install locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolchainConfig {
    /// A directory holding clang, opt, llvm-link and llc (plain or version-suffixed names).
    pub llvm_bin: Option<PathBuf>,
    /// The libclc bitcode file `nvptx64--nvidiacl.bc`.
    pub libclc: Option<PathBuf>,
    /// The directory that contains `clc/clc.h`.
    pub clc_include: Option<PathBuf>,
    /// The GPU architecture for clang and llc, e.g. `sm_90` for H100 and H200.
    pub sm: String,
    /// Time limit of each tool run.
    pub timeout: Duration,
}

impl Default for ToolchainConfig {
    fn default() -> ToolchainConfig {
        ToolchainConfig {
            llvm_bin: None,
            libclc: None,
            clc_include: None,
            sm: "sm_90".to_string(),
            timeout: Duration::from_secs(60),
        }
    }
}

/// The four tools, libclc and the target, all checked to exist and to agree on the version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    pub(crate) clang: PathBuf,
    pub(crate) opt: PathBuf,
    pub(crate) llvm_link: PathBuf,
    pub(crate) llc: PathBuf,
    pub(crate) libclc: PathBuf,
    pub(crate) clc_include: PathBuf,
    pub(crate) sm: String,
    pub(crate) timeout: Duration,
    version: String,
}

/// The tool names in the order users think of the pipeline.
const TOOL_NAMES: [&str; 4] = ["clang", "opt", "llvm-link", "llc"];

impl Toolchain {
    /// Finds every piece: explicit configuration first, then the environment, then
    /// version-suffixed tools on `PATH` and `/usr/lib/llvm-N/bin`, preferring a version whose
    /// libclc is installed.
    pub fn detect(cfg: &ToolchainConfig) -> Result<Toolchain, LlvmError> {
        let bin_dir = given_path(cfg.llvm_bin.as_deref(), "CLMAP_LLVM_BIN", "LLVM bin dir")?;
        let tools = match &bin_dir {
            Some(dir) => tools_in_dir(dir)?,
            None => tools_from_system()?,
        };
        let version = check_versions(&tools)?;
        let major = major_of(&version);

        let libclc = match given_path(cfg.libclc.as_deref(), "CLMAP_LIBCLC", "libclc bitcode")? {
            Some(path) => path,
            None => find_libclc(major)?,
        };
        let clc_include =
            match given_path(cfg.clc_include.as_deref(), "CLMAP_CLC_INCLUDE", "clc include dir")? {
                Some(path) => include_root(&path).ok_or_else(|| LlvmError::ClcHeadersMissing {
                    searched: path.display().to_string(),
                })?,
                None => find_clc_include(major)?,
            };
        let [clang, opt, llvm_link, llc] = tools;
        Ok(Toolchain {
            clang,
            opt,
            llvm_link,
            llc,
            libclc,
            clc_include,
            sm: cfg.sm.clone(),
            timeout: cfg.timeout,
            version,
        })
    }

    /// The LLVM version, e.g. `16.0.6`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The GPU architecture compiled for, e.g. `sm_90`.
    pub fn sm(&self) -> &str {
        &self.sm
    }

    /// The per-stage time limit.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The `clang` binary.
    pub fn clang_path(&self) -> &Path {
        &self.clang
    }

    /// The `opt` binary (pool detection keys its cache on it).
    pub fn opt_path(&self) -> &Path {
        &self.opt
    }

    /// The `llvm-link` binary.
    pub fn llvm_link_path(&self) -> &Path {
        &self.llvm_link
    }

    /// The `llc` binary.
    pub fn llc_path(&self) -> &Path {
        &self.llc
    }

    /// The libclc bitcode linked into every kernel.
    pub fn libclc_path(&self) -> &Path {
        &self.libclc
    }

    /// The directory passed with `-I` so that `clc/clc.h` resolves.
    pub fn clc_include_path(&self) -> &Path {
        &self.clc_include
    }

    /// One line naming the version, every path and the target: results compiled by one
    /// toolchain are not interchangeable with another's.
    pub fn describe(&self) -> String {
        format!(
            "LLVM {} ({}): clang {}, opt {}, llvm-link {}, llc {}, libclc {}, clc headers {}",
            self.version,
            self.sm,
            self.clang.display(),
            self.opt.display(),
            self.llvm_link.display(),
            self.llc.display(),
            self.libclc.display(),
            self.clc_include.display()
        )
    }
}

/// A path from the configuration or else the environment; it must exist when given.
fn given_path(
    configured: Option<&Path>,
    variable: &str,
    what: &'static str,
) -> Result<Option<PathBuf>, LlvmError> {
    let (path, source_name) = match configured {
        Some(path) => (path.to_path_buf(), "configuration".to_string()),
        None => match std::env::var_os(variable) {
            Some(value) if !value.is_empty() => (PathBuf::from(value), variable.to_string()),
            _ => return Ok(None),
        },
    };
    if path.exists() {
        Ok(Some(path))
    } else {
        Err(LlvmError::GivenPathMissing { what, path, source_name })
    }
}

/// The tools in one directory. A tool missing there is looked up on `PATH` with the version of
/// the tools that are there, so a directory carrying only opt, llvm-link and llc can be used
/// with a system clang of the same major version.
fn tools_in_dir(dir: &Path) -> Result<[PathBuf; 4], LlvmError> {
    let in_dir: Vec<Option<PathBuf>> =
        TOOL_NAMES.iter().map(|name| find_in_dir(dir, name)).collect();
    let mut major = None;
    for path in in_dir.iter().flatten() {
        if let Ok(version) = tool_version(path) {
            major = Some(major_of(&version));
            break;
        }
    }
    let mut found = Vec::with_capacity(TOOL_NAMES.len());
    for (name, path) in TOOL_NAMES.iter().zip(in_dir) {
        let path = match path {
            Some(path) => path,
            None => major.and_then(|m| find_on_path(&format!("{name}-{m}"))).ok_or_else(|| {
                LlvmError::ToolMissing {
                    tool: name,
                    searched: match major {
                        Some(m) => format!("{} and {name}-{m} on PATH", dir.display()),
                        None => dir.display().to_string(),
                    },
                }
            })?,
        };
        found.push(path);
    }
    to_array(found)
}

/// Tool `name` in `dir`, plain or with the highest version suffix present.
fn find_in_dir(dir: &Path, name: &str) -> Option<PathBuf> {
    let plain = dir.join(name);
    if is_executable(&plain) {
        return Some(plain);
    }
    KNOWN_MAJOR_VERSIONS
        .iter()
        .map(|major| dir.join(format!("{name}-{major}")))
        .find(|path| is_executable(path))
}

/// Tools of the newest complete installed version, a version with libclc first.
fn tools_from_system() -> Result<[PathBuf; 4], LlvmError> {
    let complete: Vec<(u32, [PathBuf; 4])> = KNOWN_MAJOR_VERSIONS
        .iter()
        .filter_map(|&major| system_tools(major).map(|tools| (major, tools)))
        .collect();
    if let Some((_, tools)) = complete.iter().find(|(major, _)| libclc_belongs_to(*major)) {
        return Ok(tools.clone());
    }
    if let Some((_, tools)) = complete.into_iter().next() {
        return Ok(tools);
    }
    // Nothing complete: name the first tool that is missing everywhere, which is the most
    // useful thing to tell the user.
    let versions: Vec<String> = KNOWN_MAJOR_VERSIONS.iter().map(u32::to_string).collect();
    for name in TOOL_NAMES {
        let anywhere = KNOWN_MAJOR_VERSIONS.iter().any(|&major| system_tool(name, major).is_some());
        if !anywhere {
            return Err(LlvmError::ToolMissing {
                tool: name,
                searched: format!(
                    "{name}-N on PATH and /usr/lib/llvm-N/bin for N in {}",
                    versions.join(", ")
                ),
            });
        }
    }
    Err(LlvmError::ToolMissing {
        tool: "clang",
        searched: "no LLVM version has all of clang, opt, llvm-link and llc".to_string(),
    })
}

fn system_tools(major: u32) -> Option<[PathBuf; 4]> {
    let found: Option<Vec<PathBuf>> =
        TOOL_NAMES.iter().map(|name| system_tool(name, major)).collect();
    found.and_then(|tools| to_array(tools).ok())
}

fn system_tool(name: &str, major: u32) -> Option<PathBuf> {
    let lib_dir = PathBuf::from(format!("/usr/lib/llvm-{major}/bin")).join(name);
    if is_executable(&lib_dir) {
        return Some(lib_dir);
    }
    find_on_path(&format!("{name}-{major}"))
}

fn to_array(tools: Vec<PathBuf>) -> Result<[PathBuf; 4], LlvmError> {
    tools.try_into().map_err(|_| LlvmError::ToolMissing {
        tool: "clang",
        searched: "internal: wrong number of tools".to_string(),
    })
}

/// Whether the installed libclc was built for LLVM `major`. Debian installs one libclc at a
/// time into a versionless directory; its package documentation directory names the version.
fn libclc_belongs_to(major: u32) -> bool {
    Path::new(&format!("/usr/lib/llvm-{major}/lib/clc/{LIBCLC_FILE}")).exists()
        || Path::new(&format!("/usr/share/doc/libclc-{major}")).exists()
}

fn find_libclc(major: u32) -> Result<PathBuf, LlvmError> {
    let candidates = [
        PathBuf::from(format!("/usr/lib/llvm-{major}/lib/clc")).join(LIBCLC_FILE),
        PathBuf::from("/usr/lib/clc").join(LIBCLC_FILE),
        PathBuf::from("/usr/share/clc").join(LIBCLC_FILE),
        PathBuf::from("/usr/local/lib/clc").join(LIBCLC_FILE),
    ];
    first_existing(&candidates)
        .ok_or_else(|| LlvmError::LibclcMissing { searched: join_paths(&candidates) })
}

fn find_clc_include(major: u32) -> Result<PathBuf, LlvmError> {
    let candidates = [
        PathBuf::from("/usr/include"),
        PathBuf::from(format!("/usr/lib/llvm-{major}/include")),
        PathBuf::from("/usr/local/include"),
    ];
    candidates
        .iter()
        .find_map(|dir| include_root(dir))
        .ok_or_else(|| LlvmError::ClcHeadersMissing { searched: join_paths(&candidates) })
}

/// The directory to pass with `-I` so that `clc/clc.h` resolves: `dir` itself, or its parent
/// when the user pointed at the `clc` directory.
fn include_root(dir: &Path) -> Option<PathBuf> {
    if dir.join("clc").join("clc.h").is_file() {
        return Some(dir.to_path_buf());
    }
    if dir.join("clc.h").is_file() && dir.file_name().is_some_and(|name| name == "clc") {
        return dir.parent().map(Path::to_path_buf);
    }
    None
}

fn first_existing(paths: &[PathBuf]) -> Option<PathBuf> {
    paths.iter().find(|path| path.is_file()).cloned()
}

fn join_paths(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// All four tools must report the same major version: bitcode is only guaranteed readable by
/// the version that wrote it or newer, and mixing hides which LLVM produced a result.
fn check_versions(tools: &[PathBuf; 4]) -> Result<String, LlvmError> {
    let mut versions = Vec::with_capacity(tools.len());
    for path in tools {
        versions.push((path, tool_version(path)?));
    }
    let first_major = versions.first().map(|(_, v)| major_of(v)).unwrap_or(0);
    if versions.iter().any(|(_, v)| major_of(v) != first_major) {
        let details: Vec<String> =
            versions.iter().map(|(path, v)| format!("{} is {v}", path.display())).collect();
        return Err(LlvmError::VersionMismatch { details: details.join(", ") });
    }
    // opt's version (the second tool) names the optimiser, which is what results depend on.
    Ok(versions.get(1).map(|(_, v)| v.clone()).unwrap_or_default())
}

/// The `X.Y.Z` version a tool prints with `--version` ("clang version 16.0.6",
/// "LLVM version 16.0.6", "Ubuntu LLVM version 16.0.6").
pub(crate) fn tool_version(path: &Path) -> Result<String, LlvmError> {
    let mut command = Command::new(path);
    command.arg("--version");
    let output =
        crate::process::run_tool(command, crate::error::Stage::Setup, VERSION_TIMEOUT).map_err(
            |e| LlvmError::VersionUnreadable { path: path.to_path_buf(), reason: e.to_string() },
        )?;
    let text = String::from_utf8_lossy(&output.stdout);
    parse_version(&text).ok_or_else(|| LlvmError::VersionUnreadable {
        path: path.to_path_buf(),
        reason: format!("no version in {:?}", text.lines().next().unwrap_or_default()),
    })
}

/// The first `version X.Y.Z` in a `--version` text.
pub(crate) fn parse_version(text: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    while let Some(word) = words.next() {
        if word == "version" {
            let candidate = words.next()?;
            let number: String =
                candidate.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            if number.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                return Some(number);
            }
        }
    }
    None
}

fn major_of(version: &str) -> u32 {
    version.split('.').next().and_then(|major| major.parse().ok()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_every_vendor_banner() {
        assert_eq!(
            parse_version("Debian clang version 16.0.6 (15~deb12u1)\nTarget: x86_64").as_deref(),
            Some("16.0.6")
        );
        assert_eq!(
            parse_version("LLVM (http://llvm.org/):\n  LLVM version 19.1.7\n").as_deref(),
            Some("19.1.7")
        );
        assert_eq!(parse_version("Ubuntu LLVM version 16.0.6\n").as_deref(), Some("16.0.6"));
        assert_eq!(parse_version("no number here"), None);
        assert_eq!(major_of("16.0.6"), 16);
    }

    #[test]
    fn include_root_accepts_the_clc_directory_itself() {
        let dir = tempfile::tempdir().expect("temp dir");
        let clc = dir.path().join("clc");
        std::fs::create_dir(&clc).expect("mkdir");
        std::fs::write(clc.join("clc.h"), "").expect("write");
        assert_eq!(include_root(dir.path()).as_deref(), Some(dir.path()));
        assert_eq!(include_root(&clc).as_deref(), Some(dir.path()));
        assert_eq!(include_root(&dir.path().join("missing")), None);
    }
}
