//! Regenerates `samples/` from the writers: `cargo run -p ngi-tests --bin make-samples`.
//!
//! With `--all-methods PATH` it writes only the RsLi with one entry of each method
//! (`samples::all_methods`, which the WASM check decodes) to `PATH`.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {}
        [flag, path] if flag == "--all-methods" => {
            std::fs::write(path, ngi_tests::samples::all_methods())?;
            println!("wrote {path}");
            return Ok(());
        }
        _ => {
            eprintln!("usage: make-samples [--all-methods PATH]");
            std::process::exit(2);
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join(ngi_tests::samples::NRES_FILE),
        ngi_tests::samples::nres(),
    )?;
    std::fs::write(
        dir.join(ngi_tests::samples::RSLI_FILE),
        ngi_tests::samples::rsli(),
    )?;
    println!("wrote {}", dir.display());
    Ok(())
}
