//! Finds libai00: `AI00_LIB_DIR` (a directory holding libai00.so, e.g. a build tree's `lib/`)
//! first, else `pkg-config --libs ai00` (an installed library), else the linker's default path.
//! The crate's own tests and examples get an rpath to that directory so they run without
//! LD_LIBRARY_PATH. Link arguments do not reach dependent crates: a program using this crate
//! finds libai00 on the loader's path (installed, or LD_LIBRARY_PATH), or sets its own rpath
//! from `DEP_AI00_LIB_DIR`, which this script exports (`links = "ai00"`). No crates are used:
//! pkg-config is run as a program.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=AI00_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let mut dirs: Vec<String> = Vec::new();
    if let Ok(dir) = env::var("AI00_LIB_DIR") {
        if !dir.is_empty() {
            // A relative directory is taken from the package directory (the build script's
            // working directory) and made absolute, so the rpath works from anywhere.
            let abs = std::fs::canonicalize(&dir).map(|p| p.display().to_string());
            dirs.push(abs.unwrap_or(dir));
        }
    }
    if dirs.is_empty() {
        if let Ok(out) = Command::new("pkg-config").args(["--libs", "ai00"]).output() {
            if out.status.success() {
                for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                    if let Some(dir) = flag.strip_prefix("-L") {
                        dirs.push(dir.to_string());
                    }
                }
            }
        }
    }
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={dir}");
        // Only this package's tests, examples and binaries are linked with it.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    if let Some(dir) = dirs.first() {
        println!("cargo:lib_dir={dir}"); // DEP_AI00_LIB_DIR for dependents' build scripts
    }
    println!("cargo:rustc-link-lib=dylib=ai00");
}
