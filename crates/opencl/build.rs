// The loader exports the same `cl*` names as this library. Binding the library's references
// to its own functions (the dispatch table's entries) at link time keeps a call that came
// through the loader from being routed back into the loader.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
