//! Lists the OpenCL devices clmap can use, with the advice clmap gives when there are none.
//!
//! `cargo run -p clmap-device --example devices [-- --json] [-- --bandwidth SELECTOR]`

use std::process::ExitCode;

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let devices = match clmap_device::list_devices() {
        Ok(devices) => devices,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    if arguments.iter().any(|argument| argument == "--json") {
        match serde_json::to_string_pretty(&devices) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        for info in &devices {
            println!("{}", info.summary_line());
        }
        if let Some(hint) = clmap_device::listing_hint(&devices) {
            println!("{hint}");
        }
    }
    if let Some(position) = arguments.iter().position(|argument| argument == "--bandwidth") {
        let selector = arguments.get(position + 1).map(String::as_str).unwrap_or("");
        let measured = clmap_device::select_device(selector)
            .and_then(|device| clmap_device::copy_bandwidth(&device, 256 << 20, 10));
        match measured {
            Ok(gigabytes_per_second) => println!("copy bandwidth: {gigabytes_per_second:.1} GB/s"),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
