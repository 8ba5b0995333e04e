//! Sources the unit tests of several modules read from: the ways a real
//! input misbehaves that a byte slice never does.

use std::io::{self, Read};

/// A source whose every other read is interrupted (as a signal does), the
/// others giving at most `most` bytes.
pub(crate) struct Interrupting<'a> {
    bytes: &'a [u8],
    most: usize,
    interrupted: bool,
}

impl<'a> Interrupting<'a> {
    pub(crate) fn new(bytes: &'a [u8], most: usize) -> Interrupting<'a> {
        Interrupting {
            bytes,
            most,
            interrupted: false,
        }
    }
}

impl Read for Interrupting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupted = !self.interrupted;
        if self.interrupted {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.most).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}
