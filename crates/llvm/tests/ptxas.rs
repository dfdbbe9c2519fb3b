//! `ptxas_resources` with a stand-in ptxas (CI has no CUDA toolkit). Its own test binary because
//! it sets `CLMAP_PTXAS` for the whole process.

use std::os::unix::fs::PermissionsExt;

use clmap_llvm::{ptxas_resources, Ptx};

#[test]
fn figures_come_from_the_ptxas_report_and_absence_is_none() {
    let dir = clmap_testkit::Scratch::new("llvm-ptxas");
    let fake = dir.path().join("ptxas");
    // Checks it was called like ptxas -v --gpu-name sm_90 -o OUT IN, and that IN ends without NUL.
    std::fs::write(
        &fake,
        r#"#!/bin/sh
[ "$1" = "-v" ] && [ "$2" = "--gpu-name" ] && [ "$3" = "sm_90" ] || exit 3
tail -c 1 "$6" | od -An -tx1 | grep -q ' 00' && exit 4
echo "ptxas info    : Compiling entry function 'k' for 'sm_90'" >&2
echo "ptxas info    : Function properties for k" >&2
echo "    0 bytes stack frame, 12 bytes spill stores, 12 bytes spill loads" >&2
echo "ptxas info    : Used 255 registers, 4096 bytes smem, 360 bytes cmem[0]" >&2
"#,
    )
    .expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let ptx =
        Ptx::from_llc_output(b".version 7.8\n.target sm_90\n.entry k()\n{\n\tret;\n}\n".to_vec());

    std::env::set_var("CLMAP_PTXAS", &fake);
    let resources = ptxas_resources(&ptx, "sm_90").expect("figures");
    assert_eq!(resources.functions.len(), 1);
    let k = &resources.functions[0];
    assert_eq!((k.registers, k.spill_stores, k.shared), (255, 12, 4096));
    assert!(resources.to_string().contains("255 registers"));

    // A ptxas that rejects the arguments (wrong target) gives no figures.
    assert_eq!(ptxas_resources(&ptx, "sm_80"), None);

    std::env::set_var("CLMAP_PTXAS", dir.path().join("missing"));
    assert_eq!(ptxas_resources(&ptx, "sm_90"), None);
}
