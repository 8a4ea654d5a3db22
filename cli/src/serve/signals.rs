//! The signals that stop the server: SIGINT (Ctrl-C) and, on Unix, SIGTERM.

#[cfg(unix)]
use tokio::signal::unix::{Signal, SignalKind, signal};

/// On Unix, listens from its making to the process's end, so that a signal that comes
/// while nothing waits for one is kept for the next wait. A listener made for each wait
/// missed a second signal sent while the first one's stop began (before the wait for the
/// second was first polled), and the server waited out `--shutdown-timeout` instead of
/// stopping. Two of one kind that come between two waits are one (tokio coalesces them).
/// Elsewhere each wait listens for Ctrl-C anew (tokio's `ctrl_c`), with that gap.
pub struct StopSignals {
    #[cfg(unix)]
    interrupt: Option<Signal>,
    #[cfg(unix)]
    terminate: Option<Signal>,
}

impl StopSignals {
    /// Starts listening; inside a runtime with its I/O driver. A listener that cannot be
    /// set up is left out: its signal must not read as one.
    pub fn listen() -> StopSignals {
        let signals = StopSignals {
            #[cfg(unix)]
            interrupt: signal(SignalKind::interrupt()).ok(),
            #[cfg(unix)]
            terminate: signal(SignalKind::terminate()).ok(),
        };
        #[cfg(unix)]
        if signals.interrupt.is_none() && signals.terminate.is_none() {
            tracing::warn!(
                target: "ngi::serve",
                "no signal can stop the server: listening for SIGINT and SIGTERM failed"
            );
        }
        signals
    }

    /// The next signal, or one that came since the last wait. Cancel-safe (as tokio's
    /// `recv` is): a `select!` that another branch wins loses no signal.
    pub async fn next(&mut self) {
        #[cfg(unix)]
        {
            async fn one(signal: Option<&mut Signal>) {
                match signal {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                () = one(self.interrupt.as_mut()) => {}
                () = one(self.terminate.as_mut()) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
