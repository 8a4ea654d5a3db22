//! Streams one entry of an NRes or RsLi archive to stdout, decoded, through ngi-tokio:
//!
//! ```text
//! cargo run -p ngi-tokio --example cat -- samples/sample.rsli DEFLATE.TXT
//! cargo run -p ngi-tokio --example cat -- samples/sample.nres 0      # by index
//! ```
//!
//! The entry is looked up by the format's engine rules (NRes names ASCII case-insensitive,
//! RsLi `rsFind`), or taken by index when the argument is a number that names no entry.
//! Memory stays bounded whatever the entry's size: the archive's directory, one decoder
//! and a chunk at a time.

use std::process::ExitCode;

use futures::StreamExt;
use tokio::io::AsyncWriteExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, name] = &args[..] else {
        eprintln!("usage: cat ARCHIVE NAME|INDEX");
        return ExitCode::from(2);
    };
    match cat(path, name).await {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cat: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn cat(path: &str, name: &str) -> std::io::Result<()> {
    let archive = ngi_tokio::Archive::open(path).await?;
    let index = archive
        .find(name.as_bytes())
        .or_else(|| name.parse().ok().filter(|&i| i < archive.len()))
        .ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, format!("no entry {name:?}"))
        })?;
    let mut stdout = tokio::io::stdout();
    let mut chunks = archive.stream(index)?;
    while let Some(chunk) = chunks.next().await {
        stdout.write_all(&chunk?).await?;
    }
    stdout.flush().await
}
