//! `/PATH/` bodies, rendered a batch of rows at a time as the client takes them.
//!
//! A listing was built whole before it was sent, and held until the client had read it:
//! 58 MB of JSON for an archive of 300 000 entries, so a dozen clients that asked and did
//! not read held a gigabyte, beyond every bound the server sets. A body now holds its
//! archive, the table's order (for a sorted page) and one batch of rows, and one of the
//! server's stream permits, so `--max-streams` bounds listings in flight as it bounds
//! entries.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use ngi_tokio::Archive;
use tokio::sync::OwnedSemaphorePermit;

use super::html::{self, Sort};
use super::paths::Located;
use crate::commands::list;

/// Rows rendered per chunk: about 50 KB of JSON.
const ROWS_PER_CHUNK: usize = 256;

/// What the listing is rendered as.
pub enum Form {
    /// `ngi list --json`'s array.
    Json,
    /// The browser's table, in the order [`html::table_order`] gave.
    Html {
        located: Located,
        sort: Sort,
        order: Vec<u32>,
    },
}

/// A listing's body (a `Stream` of chunks).
pub struct Listing {
    archive: Archive,
    form: Form,
    /// The next row to render; `None` before the head went out.
    next: Option<usize>,
    done: bool,
    _permit: OwnedSemaphorePermit,
}

impl Listing {
    pub fn new(archive: Archive, form: Form, permit: OwnedSemaphorePermit) -> Listing {
        Listing {
            archive,
            form,
            next: None,
            done: false,
            _permit: permit,
        }
    }

    /// The head of the body: what comes before the first row.
    fn head(&self) -> Vec<u8> {
        match &self.form {
            Form::Json => b"[".to_vec(),
            Form::Html { located, sort, .. } => {
                html::archive_head(located, &self.archive, *sort).into_bytes()
            }
        }
    }

    /// Rows `from..to` of the listing.
    fn rows(&self, from: usize, to: usize) -> io::Result<Vec<u8>> {
        match &self.form {
            Form::Json => {
                let mut out = Vec::new();
                for (index, entry) in self.archive.entries()[from..to].iter().enumerate() {
                    if from + index > 0 {
                        out.push(b',');
                    }
                    serde_json::to_writer(&mut out, &list::row(from + index, entry))?;
                }
                Ok(out)
            }
            Form::Html { located, order, .. } => {
                let mut out = String::new();
                for &index in &order[from..to] {
                    html::archive_row(&mut out, located, &self.archive, index as usize);
                }
                Ok(out.into_bytes())
            }
        }
    }

    fn tail(&self) -> &'static [u8] {
        match self.form {
            Form::Json => b"]",
            Form::Html { .. } => html::ARCHIVE_TAIL.as_bytes(),
        }
    }
}

impl Stream for Listing {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let Some(from) = this.next else {
            this.next = Some(0);
            return Poll::Ready(Some(Ok(Bytes::from(this.head()))));
        };
        let count = this.archive.len();
        if from >= count {
            this.done = true;
            return Poll::Ready(Some(Ok(Bytes::from_static(this.tail()))));
        }
        let to = (from + ROWS_PER_CHUNK).min(count);
        this.next = Some(to);
        Poll::Ready(Some(this.rows(from, to).map(Bytes::from)))
    }
}
