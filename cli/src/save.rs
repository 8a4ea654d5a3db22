//! Atomic file writes: every file `ngi` writes over (an archive edited in place, `pack`'s
//! and `repack`'s output, `unpack`'s manifest) is written to a temporary file in the
//! target's folder, flushed to disk, renamed over the target and the folder flushed too.
//! A crash or a kill at any moment leaves either the old file or the new one, never a mix;
//! on any error the target is untouched and the temporary file removed.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::folder::Folder;
use crate::report::{ShowPath, say};

/// Writes `path` atomically with what `fill` writes, with `check` run on the written file
/// (its temporary path, the data on disk) before it takes the target's place. An existing
/// target keeps its permissions. `fill` or `check` may fail at any point: the target is
/// then as it was.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    check: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    // Through a symbolic link, the file it names is the one replaced (the link stays).
    let resolved = fs::canonicalize(path)
        .ok()
        .filter(|_| fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()));
    let (folder, name) = Folder::of(resolved.as_deref().unwrap_or(path))?;
    write_atomic_in(&folder, name, fill, check)
}

/// [`write_atomic`] of the file `name` of `folder`; a link there is replaced, not
/// followed.
pub fn write_atomic_in(
    folder: &Folder,
    name: &OsStr,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    check: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let prepared = prepare_atomic_in(folder, name, fill)?;
    match check(&folder.join(&prepared.temp)).and_then(|()| stopped()) {
        Ok(()) => prepared.commit(),
        Err(e) => {
            prepared.abandon();
            Err(e)
        }
    }
}

/// The first half of [`write_atomic_in`]: the temporary file written (a signal stops it
/// as it does the whole write) and flushed to disk, waiting to take the target's place.
/// For a command that puts other files in place before this one, past the point where a
/// signal may still stop it.
pub fn prepare_atomic_in<'a>(
    folder: &'a Folder,
    name: &OsStr,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Prepared<'a>> {
    let (temp, file) = folder.create_temp(name).map_err(|e| {
        // "Permission denied" alone sent users to the file's mode, which is not asked.
        io::Error::new(
            e.kind(),
            format!(
                "no new file could be made in its folder {} (a file is written there, then \
                 renamed over its target): {e}",
                folder.join("").shown()
            ),
        )
    })?;
    match folder
        .keep_permissions(&file, name)
        .and_then(|()| fill_and_sync(file, fill))
    {
        Ok(()) => Ok(Prepared {
            folder,
            temp,
            name: name.to_os_string(),
        }),
        Err(e) => {
            let _ = folder.remove(&temp);
            Err(e)
        }
    }
}

/// A file written by [`prepare_atomic_in`], not yet in its target's place.
#[derive(Debug)]
pub struct Prepared<'a> {
    folder: &'a Folder,
    temp: OsString,
    name: OsString,
}

impl Prepared<'_> {
    /// Renames the file over its target and flushes the folder; signals are not looked
    /// at any more. Once the rename is done the write is: a folder that cannot be flushed
    /// is said, not an error (it was "not written", exit 1, and a retried `rm --index`
    /// removed a second entry).
    pub fn commit(self) -> io::Result<()> {
        if let Err(e) = self.folder.rename(&self.temp, &self.name) {
            let _ = self.folder.remove(&self.temp);
            return Err(e);
        }
        // Opening the folder to flush it needs leave to read it, which a folder one may
        // write in and not list withholds; some file systems refuse the flush itself.
        if let Err(e) = self.folder.sync() {
            say(format_args!(
                "{}: written, but its folder could not be flushed to disk ({e}): the \
                 replacement may not survive a crash of the system",
                self.folder.join(&self.name).shown()
            ));
        }
        Ok(())
    }

    /// Removes the file; the target stays as it was.
    pub fn abandon(self) {
        let _ = self.folder.remove(&self.temp);
    }
}

/// Writes what `fill` writes to `file` and flushes it to disk.
fn fill_and_sync(
    file: File,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, Stoppable(file));
    fill(&mut out)?;
    let Stoppable(file) = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()
}

/// Set by SIGINT, SIGTERM or SIGHUP once [`stop_on_signals`] has run.
static STOP: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::OnceLock::new();

/// Makes SIGINT (Ctrl-C), SIGTERM and SIGHUP stop an atomic write instead of killing the
/// process: the write fails at its next chunk, the temporary file is removed and the
/// target is as it was (a kill left a temporary file as large as the archive). A second
/// signal while the first is being handled ends the process at once, as one expects of
/// a second Ctrl-C. For the commands that write; `serve` handles signals its own way.
pub fn stop_on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::flag;
        let stop = STOP.get_or_init(Default::default);
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            // The order matters: the shutdown, registered first, sees the flag the first
            // signal set only from the second on.
            let _ = flag::register_conditional_shutdown(signal, 1, std::sync::Arc::clone(stop));
            let _ = flag::register(signal, std::sync::Arc::clone(stop));
        }
    }
}

/// An error once a signal asked the command to stop.
pub fn stopped() -> io::Result<()> {
    match STOP.get() {
        Some(stop) if stop.load(std::sync::atomic::Ordering::Relaxed) => {
            Err(io::Error::other("stopped by a signal"))
        }
        _ => Ok(()),
    }
}

/// A file being written (by an atomic write, or an extracted entry), which stops at the
/// next chunk once a signal asked.
pub struct Stoppable<W>(pub W);

impl<W: Write> Write for Stoppable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        stopped()?;
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Where a file a command makes is written: straight at its target when nothing is there,
/// else (a regular file `--force` replaces) to a temporary file beside it that takes the
/// target's place in [`finish`](Replacing::finish). Until then the old file stays as it
/// was, so an entry that fails to decode, or a full disk, loses nothing. Not synced: the
/// files made this way (extracted and unpacked entries) can be made again.
#[derive(Debug)]
pub struct Replacing<'a> {
    folder: &'a Folder,
    target: OsString,
    temp: Option<OsString>,
}

impl<'a> Replacing<'a> {
    /// Opens the file to write for `target` in `folder`; `replace` says whether a file
    /// there is to be replaced (else the target is created new, failing on anything
    /// already there).
    pub fn create(folder: &'a Folder, target: &OsStr, replace: bool) -> io::Result<(Self, File)> {
        let (temp, file) = if replace {
            let (temp, file) = folder.create_temp(target)?;
            if let Err(e) = folder.keep_permissions(&file, target) {
                drop(file);
                let _ = folder.remove(&temp);
                return Err(e);
            }
            (Some(temp), file)
        } else {
            // Fails on anything already there, links included: nothing is followed.
            (None, folder.create_new(target)?)
        };
        let replacing = Replacing {
            folder,
            target: target.to_os_string(),
            temp,
        };
        Ok((replacing, file))
    }

    /// Whether the file written replaces one at the target (else it was created there).
    pub fn replaces(&self) -> bool {
        self.temp.is_some()
    }

    /// The file written (closed by the caller first) takes the target's place. The old
    /// file is removed first, then the new one renamed to its name: a rename over an
    /// existing file makes ext4 (`auto_da_alloc`) flush the new file's data at once,
    /// which made `extract --force` of 200 entries of 256 KiB 1.5 times slower. These
    /// files are not the atomic replacements [`write_atomic`] makes: should the rename
    /// fail once the old file is gone, the new one stays where it was written, and the
    /// error says where.
    pub fn finish(self) -> io::Result<()> {
        let Some(temp) = &self.temp else {
            return Ok(());
        };
        match self.folder.remove(&self.target) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                let _ = self.folder.remove(temp);
                Err(e)
            }
            // The old file is gone: the new one is kept, wherever it is, and said where.
            _ => self.folder.rename(temp, &self.target).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "{e}; the new file is left at {}",
                        self.folder.join(temp).shown()
                    ),
                )
            }),
        }
    }

    /// Removes what was written: the temporary file, or the new file at the target. An
    /// old file at the target stays.
    pub fn abandon(self) {
        let _ = self
            .folder
            .remove(self.temp.as_ref().unwrap_or(&self.target));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ngi_tests::scratch::Scratch;

    /// A writer that fails once `left` bytes have gone through.
    struct FailAfter<'a> {
        inner: &'a mut dyn Write,
        left: usize,
    }

    impl Write for FailAfter<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("injected failure"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            self.inner.write(&buf[..n])
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    #[test]
    fn a_failure_at_every_4k_step_leaves_the_target_and_no_temp_file() {
        let dir = Scratch::new("save-fail");
        let target = dir.join("archive.res");
        let old: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(&target, &old).unwrap();
        let new: Vec<u8> = (0..70_000u32).map(|i| (i % 13) as u8).collect();
        let mut steps = 0;
        for fail_at in (0..new.len()).step_by(4096) {
            let fill = |out: &mut dyn Write| {
                let mut failing = FailAfter {
                    inner: out,
                    left: fail_at,
                };
                for chunk in new.chunks(1000) {
                    failing.write_all(chunk)?;
                }
                Ok(())
            };
            let result = write_atomic(&target, fill, |_| Ok(()));
            assert_eq!(result.unwrap_err().to_string(), "injected failure");
            assert_eq!(fs::read(&target).unwrap(), old, "failed at {fail_at}");
            let names: Vec<_> = fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, vec![std::ffi::OsString::from("archive.res")]);
            steps += 1;
        }
        assert_eq!(steps, 18);
        write_atomic(&target, |out| out.write_all(&new), |_| Ok(())).unwrap();
        assert_eq!(fs::read(&target).unwrap(), new);
    }

    #[cfg(unix)]
    #[test]
    fn the_target_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = Scratch::new("save-mode");
        let target = dir.join("a.lib");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&target, |out| out.write_all(b"new"), |_| Ok(())).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640
        );
        // A new file gets the usual mode of a created file.
        write_atomic(&dir.join("b.lib"), |out| out.write_all(b"b"), |_| Ok(())).unwrap();
        assert_eq!(fs::read(dir.join("b.lib")).unwrap(), b"b");
    }
}
