//! Why an append or a read did not happen: an expected outcome ([`Rejection`]) or a disaster
//! ([`Error`](enum@Error)). Like sled's `Result<Result<T, Conflict>, Error>`, the two never mix.

use thiserror::Error;

/// An expected outcome that refused a request; the log is unchanged and healthy.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum Rejection {
    /// No game of that id was created (or its creation is not yet durable).
    // Any id a client sends ends up here: quoted short, unlike ids the log has accepted.
    #[error("unknown game {}", crate::quote::quote(.game))]
    UnknownGame {
        /// The game id asked for.
        game: String,
    },
    /// `create` named a game that already exists.
    #[error("game {game:?} already exists")]
    GameExists {
        /// The game id asked for.
        game: String,
    },
    /// The append was written against an older (or imagined) state of the game.
    #[error("expected seq {expected} but game {game:?} is at seq {last} (next is {next})", next = .last + 1)]
    SeqMismatch {
        /// The game appended to.
        game: String,
        /// The seq the client said its first event would get.
        expected: u64,
        /// The game's current last seq.
        last: u64,
    },
    /// An event id already names a stored event, and this request is not an exact retry of it:
    /// either its body differs or only some of the request's events were stored before.
    #[error(
        "event id {event_id:?} already names seq {seq} of game {game:?}; \
         a retry must resend the same events with the same bodies"
    )]
    EventIdReused {
        /// The game appended to.
        game: String,
        /// The event id that is taken.
        event_id: String,
        /// The seq of the stored event that owns the id.
        seq: u64,
    },
    /// `append` was called with no events.
    #[error("append has no events")]
    EmptyAppend,
    /// The game id is not 1..=128 bytes of UTF-8.
    #[error("bad game id: {reason}")]
    BadGameId {
        /// What is wrong with it.
        reason: String,
    },
    /// An event (or a header) cannot be stored as given. Added beyond the list: an empty
    /// or over-long event id, an id repeated within one append, a body with a newline or over
    /// [`MAX_BODY_BYTES`](super::MAX_BODY_BYTES).
    #[error("event {index}: {reason}")]
    BadEvent {
        /// The event's position in the request (0 for a header).
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A leased append came from an instance whose lease on the game was taken by another
    /// instance since (see [`Log::claim`](super::Log::claim)): nothing was written. The
    /// caller's view of the game may be stale: it reloads the game and claims it again.
    #[error(
        "game {game:?} is now served by instance {holder:?} (lease epoch {now}, this \
         instance held epoch {held}); nothing was written"
    )]
    Fenced {
        /// The game appended to.
        game: String,
        /// The epoch this instance's lease had.
        held: u64,
        /// The game's lease epoch now.
        now: u64,
        /// The instance holding it now.
        holder: String,
    },
}

impl Rejection {
    /// [`Rejection::UnknownGame`] for `game`.
    pub(crate) fn unknown_game(game: &str) -> Rejection {
        Rejection::UnknownGame {
            game: game.to_owned(),
        }
    }
}

/// A disaster: the request's outcome is unknown or the stored log cannot be trusted.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum Error {
    /// sled or the file system failed; an append that got this may or may not be stored, so
    /// retry it with the same event ids.
    #[error("storage: {0}")]
    Storage(String),
    /// A stored record is corrupt, missing or does not chain to its neighbours; it is never
    /// served.
    #[error("data loss in game {game:?} at seq {seq}: {detail}")]
    DataLoss {
        /// The game whose log is damaged.
        game: String,
        /// The first seq found damaged.
        seq: u64,
        /// What was found.
        detail: String,
    },
    /// The store as a whole cannot be trusted or opened: sled failed or panicked reading its
    /// files, or the anchor of what was acknowledged is damaged or missing. Nothing is served.
    #[error(
        "the store is damaged: {0}. Restore the data directory from a copy (then `referee \
         store adopt` to accept it as it is), or rebuild it from audit exports with `referee \
         store rebuild`; `referee store check` reports game by game"
    )]
    Damaged(String),
    /// The log has shut down (or its writer stopped); nothing more can be appended or watched.
    #[error("the log is closed")]
    Closed,
    /// The store cannot be reached for now (a database restarting or failing over, a
    /// connection refused or broken): nothing is known to be lost. An append that got this
    /// may or may not be stored; retry it with the same event ids after a moment.
    #[error("the store is unavailable for now: {0}; retry with the same event ids")]
    Unavailable(String),
    /// The file system holding the store is full: nothing more can be written until space is
    /// freed. What was acknowledged is intact.
    #[error(
        "no space left for the store: {0}. What was acknowledged is intact; free space on \
         that file system (then restart the service if it says so)"
    )]
    NoSpace(String),
    /// Another process holds the store open (sled locks its directory): it is in use, not
    /// damaged.
    #[error("the store is in use: {0}")]
    InUse(String),
}

impl Error {
    /// Whether the failure may pass by itself (the request is worth retrying as it is):
    /// a store unavailable for now, or one that has shut down.
    pub fn is_temporary(&self) -> bool {
        matches!(self, Error::Unavailable(_) | Error::Closed)
    }
}

impl From<sled::Error> for Error {
    fn from(e: sled::Error) -> Self {
        if let Some(found) = corruption(&e) {
            // sled found its own files damaged: the store cannot be trusted. Where a game's
            // read meets it, the reader names the game and seq instead (`DataLoss`).
            return Error::Damaged(found);
        }
        match e {
            // sled's own text for these is Rust's debug form of the io::Error
            // ("IO error: Os { code: 28, kind: StorageFull, ... }"): say it in words.
            sled::Error::Io(io) => Error::from(io),
            other => Error::Storage(other.to_string()),
        }
    }
}

/// sled's report of corrupted data, without the empty "backtrace ()" its own text ends in;
/// None for any other error.
pub(super) fn corruption(e: &sled::Error) -> Option<String> {
    match e {
        sled::Error::Corruption { at: Some(at), .. } => {
            Some(format!("sled found corrupted data at {at:?}"))
        }
        sled::Error::Corruption { at: None, .. } => Some("sled found corrupted data".into()),
        _ => None,
    }
}

impl From<std::io::Error> for Error {
    /// By cause: a full file system or quota is [`Error::NoSpace`], anything else
    /// [`Error::Storage`]; in the operating system's words, never Rust's debug text.
    fn from(e: std::io::Error) -> Self {
        use std::io::ErrorKind;
        match e.kind() {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
                Error::NoSpace(e.to_string())
            }
            _ => Error::Storage(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleds_corruption_report_is_damage_without_its_backtrace_text() {
        let error = Error::from(sled::Error::Corruption { at: None, bt: () });
        let Error::Damaged(found) = &error else {
            panic!("expected Damaged, got {error:?}");
        };
        assert_eq!(found, "sled found corrupted data");
        let text = error.to_string();
        assert!(!text.contains("backtrace"), "{text}");
        assert!(
            text.contains("Restore the data directory from a copy")
                && text.contains("referee store rebuild"),
            "{text}"
        );
        let io = Error::from(sled::Error::Io(std::io::Error::other("disk gone")));
        assert!(matches!(io, Error::Storage(_)), "{io:?}");
    }

    #[test]
    fn a_full_disk_is_no_space_in_words_not_rust_debug_text() {
        let full = std::io::Error::from_raw_os_error(28);
        for error in [
            Error::from(sled::Error::Io(full)),
            Error::from(std::io::Error::from_raw_os_error(28)),
        ] {
            let Error::NoSpace(_) = &error else {
                panic!("expected NoSpace, got {error:?}");
            };
            let text = error.to_string();
            assert!(text.contains("No space left on device"), "{text}");
            assert!(
                !text.contains("Os {") && !text.contains("StorageFull"),
                "{text}"
            );
            assert!(!text.contains("damaged"), "{text}");
        }
    }
}
