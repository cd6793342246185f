//! What the service refuses, and the one place where it becomes a gRPC status.

use thiserror::Error;

use crate::access::Denied;
use crate::log::{self, Rejection};
use crate::referee::SetupError;

/// Why a request was not carried out. Nothing was written when one is returned.
#[derive(Debug, Error)]
pub enum Error {
    /// A field of the request is missing or malformed; `field` is its path in the request.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// A field names a place beyond what exists (a seq past the game's next event): gRPC's
    /// OUT_OF_RANGE, which tells a client that the same request may succeed once the game
    /// has grown.
    #[error("{field}: {message}")]
    OutOfRange { field: String, message: String },
    /// The request is larger than the service accepts.
    #[error("{0}")]
    TooLarge(String),
    /// The caller's token is over one of its limits (open streams, request rate).
    #[error("{0}")]
    Exhausted(String),
    /// The log refused the request (unknown game, seq conflict, reused event id, ...).
    #[error("{0}")]
    Rejected(#[from] Rejection),
    /// The header cannot start a game.
    #[error("header: {0}")]
    Setup(#[from] SetupError),
    /// The log failed (storage error or detected corruption).
    #[error("{0}")]
    Log(#[from] log::Error),
    /// Access control refused the call.
    #[error("{0}")]
    Denied(#[from] Denied),
    /// A dependency of the service (e.g. the token store) cannot be read right now.
    #[error("{0}")]
    Unavailable(String),
    /// An audit export or verification could not be carried out.
    #[error("{0}")]
    Audit(#[from] crate::audit::Error),
    /// A watcher did not read for longer than the server waits (`serve --watcher-lag-ms`):
    /// its stream ends, and it reopens `WatchGame` from `resume`, the first seq it was not
    /// sent.
    #[error(
        "watcher fell behind at seq {resume} of game \"{game}\": reopen WatchGame with \
         from_seq {resume}"
    )]
    FellBehind { game: String, resume: u64 },
    /// A stored record could not be read back as an event: the store holds something this
    /// build cannot interpret.
    #[error("game \"{game}\" seq {seq}: stored record unreadable: {message}")]
    Unreadable {
        game: String,
        seq: u64,
        message: String,
    },
}

impl Error {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<crate::stored::Error> for Error {
    /// A stored game that cannot be read back is reported as every other call reports the
    /// same failure.
    fn from(error: crate::stored::Error) -> Error {
        use crate::stored::Error as Stored;
        match error {
            Stored::Rejected(r) => Error::Rejected(r),
            Stored::Log(e) => Error::Log(e),
            Stored::Setup(e) => Error::Setup(e),
            Stored::Unreadable { game, seq, message } => Error::Unreadable { game, seq, message },
        }
    }
}

/// The gRPC name of `code`, as the proto documents a `Refusal.code` ("FAILED_PRECONDITION"):
/// the spelling of the gRPC status codes, not Rust's (`FailedPrecondition`).
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Longest message a status carries. It travels in the `grpc-message` header and clients
/// reject oversized metadata; values are quoted short where they are echoed (`quote`), and
/// this bound holds whatever a message is built from.
const MAX_MESSAGE_BYTES: usize = 1024;

/// `message` cut on a char boundary to [`MAX_MESSAGE_BYTES`], saying how long it was.
fn bounded(mut message: String) -> String {
    let total = message.len();
    if total > MAX_MESSAGE_BYTES {
        message.truncate(message.floor_char_boundary(MAX_MESSAGE_BYTES));
        message.push_str(&format!("… ({total} bytes)"));
    }
    message
}

/// Metadata (trailer) of a `FellBehind` status: the seq to reopen `WatchGame` from, so a
/// console need not parse the message.
pub const RESUME_FROM_SEQ: &str = "referee-resume-from-seq";

/// ABORTED, gRPC's "retry at a higher level": the console reopens the stream from `resume`.
/// Not RESOURCE_EXHAUSTED, which the per-token limits and the transport's message-size
/// check return and which asks for nothing to be reopened.
fn fell_behind(message: String, resume: u64) -> tonic::Status {
    let mut trailers = tonic::metadata::MetadataMap::new();
    trailers.insert(RESUME_FROM_SEQ, resume.into());
    tonic::Status::with_metadata(tonic::Code::Aborted, message, trailers)
}

/// Metadata (trailer) of an UNAVAILABLE status the store caused: how long to wait before
/// retrying, in milliseconds. The name is gRPC's own server pushback (gRFC A6), which gRPC
/// clients with a retry policy obey; others read it as a hint.
pub const RETRY_PUSHBACK_MS: &str = "grpc-retry-pushback-ms";

/// How long a client is asked to wait after the store was unavailable: a PostgreSQL failover
/// takes 2-10 s here, and a board resending every second finds it back within a second.
const RETRY_AFTER_MS: u32 = 1000;

/// UNAVAILABLE with the retry delay in its metadata: the request is worth sending again as
/// it is (with the same event ids).
pub fn unavailable(message: String) -> tonic::Status {
    let mut trailers = tonic::metadata::MetadataMap::new();
    trailers.insert(RETRY_PUSHBACK_MS, RETRY_AFTER_MS.into());
    tonic::Status::with_metadata(tonic::Code::Unavailable, message, trailers)
}

/// A log failure's status, by cause: temporary is UNAVAILABLE (retry), a full disk
/// RESOURCE_EXHAUSTED, data that is gone DATA_LOSS, an unknown storage failure INTERNAL.
fn log_status(error: &log::Error, message: String) -> tonic::Status {
    match error {
        log::Error::DataLoss { .. } | log::Error::Damaged(_) => tonic::Status::data_loss(message),
        log::Error::Closed | log::Error::Unavailable(_) | log::Error::InUse(_) => {
            unavailable(message)
        }
        log::Error::NoSpace(_) => tonic::Status::resource_exhausted(message),
        log::Error::Storage(_) => tonic::Status::internal(message),
    }
}

impl From<Error> for tonic::Status {
    fn from(error: Error) -> tonic::Status {
        let message = bounded(error.to_string());
        match error {
            Error::Invalid { .. } => tonic::Status::invalid_argument(message),
            Error::OutOfRange { .. } => tonic::Status::out_of_range(message),
            Error::TooLarge(_) | Error::Exhausted(_) => tonic::Status::resource_exhausted(message),
            Error::Rejected(r) => match r {
                Rejection::UnknownGame { .. } => tonic::Status::not_found(message),
                Rejection::GameExists { .. } => tonic::Status::already_exists(message),
                Rejection::SeqMismatch { .. } => tonic::Status::failed_precondition(message),
                Rejection::EventIdReused { .. } => tonic::Status::already_exists(message),
                // Seen only if the game changed hands twice during one request: retrying is right.
                Rejection::Fenced { .. } => tonic::Status::unavailable(message),
                Rejection::EmptyAppend
                | Rejection::BadGameId { .. }
                | Rejection::BadEvent { .. } => tonic::Status::invalid_argument(message),
            },
            Error::Setup(_) => tonic::Status::invalid_argument(message),
            Error::Log(e) => log_status(&e, message),
            Error::Unreadable { .. } => tonic::Status::data_loss(message),
            Error::FellBehind { resume, .. } => fell_behind(message, resume),
            Error::Denied(Denied::Unauthenticated(_)) => tonic::Status::unauthenticated(message),
            Error::Denied(Denied::PermissionDenied(_)) => tonic::Status::permission_denied(message),
            Error::Unavailable(_) => unavailable(message),
            Error::Audit(e) => match e {
                crate::audit::Error::UnknownGame(_) => tonic::Status::not_found(message),
                crate::audit::Error::Malformed { .. } | crate::audit::Error::PinnedKey { .. } => {
                    tonic::Status::invalid_argument(message)
                }
                crate::audit::Error::Log(_) | crate::audit::Error::Key { .. } => {
                    tonic::Status::internal(message)
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_failures_get_a_status_by_cause_with_a_retry_delay_when_temporary() {
        let status = |e: log::Error| tonic::Status::from(Error::Log(e));
        let failover = status(log::Error::Unavailable(
            "postgres: appending: connection closed".into(),
        ));
        assert_eq!(failover.code(), tonic::Code::Unavailable);
        assert_eq!(
            failover
                .metadata()
                .get(RETRY_PUSHBACK_MS)
                .map(|v| v.to_str().unwrap()),
            Some("1000")
        );
        assert!(
            failover.message().contains("retry with the same event ids"),
            "{}",
            failover.message()
        );
        let full = status(log::Error::from(std::io::Error::from_raw_os_error(28)));
        assert_eq!(full.code(), tonic::Code::ResourceExhausted);
        assert!(
            full.message().contains("No space left on device"),
            "{}",
            full.message()
        );
        assert!(!full.message().contains("Os {"), "{}", full.message());
        assert_eq!(status(log::Error::Closed).code(), tonic::Code::Unavailable);
        assert_eq!(
            status(log::Error::InUse("x".into())).code(),
            tonic::Code::Unavailable
        );
        assert_eq!(
            status(log::Error::Storage("x".into())).code(),
            tonic::Code::Internal
        );
        assert_eq!(
            status(log::Error::Damaged("x".into())).code(),
            tonic::Code::DataLoss
        );
    }

    #[test]
    fn a_status_message_is_bounded_whatever_it_echoes() {
        // A message built from something long (here a refusal's text) still stays short.
        let error = Error::invalid("events[0].event.claim", "车".repeat(30_000));
        let whole = error.to_string().len();
        let status = tonic::Status::from(error);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        let message = status.message();
        assert!(message.len() <= MAX_MESSAGE_BYTES + 20, "{}", message.len());
        assert!(
            message.starts_with("events[0].event.claim: 车车"),
            "{message}"
        );
        assert!(
            message.ends_with(&format!("… ({whole} bytes)")),
            "{message}"
        );
    }

    #[test]
    fn an_unknown_game_is_quoted_short() {
        let game = "车".repeat(30_000);
        let status = tonic::Status::from(Error::from(Rejection::UnknownGame { game }));
        assert_eq!(status.code(), tonic::Code::NotFound);
        assert!(status.message().len() < 300, "{}", status.message());
        assert!(
            status.message().ends_with("…\" (90000 bytes)"),
            "{}",
            status.message()
        );
    }

    #[test]
    fn code_names_are_the_grpc_spelling() {
        assert_eq!(
            code_name(tonic::Code::FailedPrecondition),
            "FAILED_PRECONDITION"
        );
        assert_eq!(code_name(tonic::Code::DataLoss), "DATA_LOSS");
    }

    #[test]
    fn a_short_status_message_is_whole() {
        let status = tonic::Status::from(Error::invalid("header", "is missing"));
        assert_eq!(status.message(), "header: is missing");
    }
}
