//! The `--feed SPEC` forms: where a board's reports come from.

use std::fmt;
use std::path::PathBuf;

use super::Error;

/// LiveChess's local API, where it listens unless told otherwise (DGT LiveChess 2 serves its
/// API and its own pages on port 1982 of the machine it runs on).
pub const LIVECHESS_URL: &str = "ws://localhost:1982/api/v1.0";

/// The forms, for messages and `--help`.
pub const FORMS: &str = "-, stdin, file:PATH (or an existing file's path), tcp:HOST:PORT, \
                         serial:/dev/ttyXXX or livechess[:ws://HOST:PORT/api/v1.0][#SERIAL]";

/// Where a board's reports come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedSpec {
    /// JSON lines on standard input.
    Stdin,
    /// JSON lines in a file, read to its end.
    File(PathBuf),
    /// JSON lines from a TCP server the bridge connects to (`HOST:PORT`).
    Tcp(String),
    /// JSON lines from a serial device, opened as a file: its line settings (speed, parity)
    /// are set beforehand with `stty`, which knows every adapter better than we would.
    Serial(PathBuf),
    /// DGT LiveChess's local websocket API; `serial` picks one of several boards.
    LiveChess { url: String, serial: Option<String> },
}

impl FeedSpec {
    /// Reads a SPEC; the error lists the forms.
    pub fn parse(spec: &str) -> Result<FeedSpec, Error> {
        let bad = |reason: String| Error::BadSpec {
            spec: spec.to_string(),
            reason,
        };
        if spec == "-" || spec == "stdin" {
            return Ok(FeedSpec::Stdin);
        }
        if let Some(path) = spec.strip_prefix("file:") {
            if path.is_empty() {
                return Err(bad("file: needs a path".into()));
            }
            return Ok(FeedSpec::File(PathBuf::from(path)));
        }
        if let Some(address) = spec.strip_prefix("tcp:") {
            return tcp_address(address).map(FeedSpec::Tcp).map_err(bad);
        }
        if let Some(path) = spec.strip_prefix("serial:") {
            if path.is_empty() {
                return Err(bad(
                    "serial: needs a device path, e.g. serial:/dev/ttyUSB0".into()
                ));
            }
            return Ok(FeedSpec::Serial(PathBuf::from(path)));
        }
        if spec == "livechess" || spec.starts_with("livechess:") || spec.starts_with("livechess#") {
            return livechess(&spec["livechess".len()..]).map_err(bad);
        }
        if std::path::Path::new(spec).is_file() {
            return Ok(FeedSpec::File(PathBuf::from(spec)));
        }
        Err(bad(format!(
            "no such file, and not one of the forms {FORMS}"
        )))
    }

    /// Whether the feed's end is its normal end (a file read to the end, standard input
    /// closed) rather than a device or a server going away.
    pub fn ends_normally(&self) -> bool {
        matches!(self, FeedSpec::Stdin | FeedSpec::File(_))
    }
}

/// `HOST:PORT`, checked enough to give a clear message before connecting.
fn tcp_address(address: &str) -> Result<String, String> {
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| "tcp: needs HOST:PORT, e.g. tcp:127.0.0.1:7000".to_string())?;
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(format!(
            "tcp: needs HOST:PORT with a port 0-65535, got {address:?}"
        ));
    }
    Ok(address.to_string())
}

/// What follows `livechess`: nothing, `:URL`, `#SERIAL`, or `:URL#SERIAL`.
fn livechess(rest: &str) -> Result<FeedSpec, String> {
    let (url, serial) = match rest.rsplit_once('#') {
        Some((url, "")) => {
            return Err(format!("an empty board serial after '#' in {url:?}"));
        }
        Some((url, serial)) => (url, Some(serial.to_string())),
        None => (rest, None),
    };
    let url = match url.strip_prefix(':') {
        Some(url) => url,
        None if url.is_empty() => LIVECHESS_URL,
        None => return Err("livechess takes :URL and/or #SERIAL".into()),
    };
    if !url.starts_with("ws://") {
        return Err(format!(
            "LiveChess's API is a plain ws:// URL on the machine it runs on (default \
             {LIVECHESS_URL}), got {url:?}"
        ));
    }
    Ok(FeedSpec::LiveChess {
        url: url.to_string(),
        serial,
    })
}

impl fmt::Display for FeedSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeedSpec::Stdin => write!(f, "stdin"),
            FeedSpec::File(path) => write!(f, "file:{}", path.display()),
            FeedSpec::Tcp(address) => write!(f, "tcp:{address}"),
            FeedSpec::Serial(path) => write!(f, "serial:{}", path.display()),
            FeedSpec::LiveChess { url, serial: None } => write!(f, "livechess:{url}"),
            FeedSpec::LiveChess {
                url,
                serial: Some(serial),
            } => write!(f, "livechess:{url}#{serial}"),
        }
    }
}
