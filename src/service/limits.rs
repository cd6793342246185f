//! Limits per token against abuse: open streams, and a request rate enforced by a token
//! bucket. A call over a limit is refused with `RESOURCE_EXHAUSTED` before it touches the log,
//! so nothing already written changes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::Error;

/// The limits one token is held to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Most `Play` and `WatchGame` streams one token may hold open at once.
    pub max_streams_per_token: usize,
    /// Requests per second one token may sustain (each unary call, each stream opened and
    /// each message of a `Play` stream counts as one).
    pub rate_per_token: f64,
    /// Requests one token may make at once after being idle: the bucket's size.
    pub burst_per_token: u32,
}

impl Limits {
    /// `referee serve`'s defaults: an arbiter console may watch a tournament's boards, a board
    /// sends a few events a second at most, and an import of a game fits in one burst.
    pub const SERVE_DEFAULTS: Limits = Limits {
        max_streams_per_token: 64,
        rate_per_token: 50.0,
        burst_per_token: 200,
    };

    /// No limits (tests and benchmarks that are not about limits).
    pub const NONE: Limits = Limits {
        max_streams_per_token: usize::MAX,
        rate_per_token: f64::INFINITY,
        burst_per_token: u32::MAX,
    };
}

/// What one token has used.
struct Usage {
    open_streams: usize,
    /// Requests the token may still make now; refilled at `rate_per_token`.
    bucket: f64,
    refilled: Instant,
}

/// Keeps every token to its limits.
pub struct Governor {
    limits: Limits,
    usage: Mutex<HashMap<String, Usage>>,
}

/// An open stream, counted until it is dropped (when the stream's task ends).
pub struct StreamPermit {
    governor: Arc<Governor>,
    token: String,
}

impl Governor {
    pub fn new(limits: Limits) -> Governor {
        Governor {
            limits,
            usage: Mutex::new(HashMap::new()),
        }
    }

    fn with_usage<T>(&self, token: &str, f: impl FnOnce(&mut Usage) -> T) -> T {
        let mut usage = self.usage.lock().expect("limits lock");
        let entry = usage.entry(token.to_string()).or_insert_with(|| Usage {
            open_streams: 0,
            bucket: f64::from(self.limits.burst_per_token),
            refilled: Instant::now(),
        });
        f(entry)
    }

    /// Takes one request from `token`'s bucket, or refuses it naming the limit.
    pub fn admit(&self, token: &str) -> Result<(), Error> {
        let Limits {
            rate_per_token: rate,
            burst_per_token: burst,
            ..
        } = self.limits;
        if rate.is_infinite() {
            return Ok(()); // no rate limit (and 0 s x infinity would be NaN below)
        }
        self.with_usage(token, |u| {
            let now = Instant::now();
            let earned = now.duration_since(u.refilled).as_secs_f64() * rate;
            u.bucket = (u.bucket + earned).min(f64::from(burst));
            u.refilled = now;
            if u.bucket >= 1.0 {
                u.bucket -= 1.0;
                Ok(())
            } else {
                Err(Error::Exhausted(format!(
                    "token \"{token}\" is over its request rate limit of {rate} requests/s \
                     (burst {burst}, `serve --rate-per-token`/`--burst-per-token`); nothing \
                     was written, retry later"
                )))
            }
        })
    }

    /// Counts a stream `token` opens, or refuses it naming the limit.
    pub fn open_stream(self: &Arc<Self>, token: &str) -> Result<StreamPermit, Error> {
        let max = self.limits.max_streams_per_token;
        self.with_usage(token, |u| {
            if u.open_streams >= max {
                return Err(Error::Exhausted(format!(
                    "token \"{token}\" already holds {max} open streams, its limit \
                     (`serve --max-streams-per-token`); close one first"
                )));
            }
            u.open_streams += 1;
            Ok(())
        })?;
        Ok(StreamPermit {
            governor: Arc::clone(self),
            token: token.to_string(),
        })
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        self.governor.with_usage(&self.token, |u| {
            u.open_streams = u.open_streams.saturating_sub(1)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_refuses_then_refills() {
        let g = Governor::new(Limits {
            max_streams_per_token: 1,
            rate_per_token: 1000.0,
            burst_per_token: 3,
        });
        for _ in 0..3 {
            g.admit("t").expect("within the burst");
        }
        let refused = g.admit("t").unwrap_err().to_string();
        assert!(refused.contains("request rate limit"), "{refused}");
        g.admit("other").expect("each token has its own bucket");
        std::thread::sleep(std::time::Duration::from_millis(5));
        g.admit("t").expect("refilled at 1000/s");
    }

    #[test]
    fn a_stream_permit_is_returned_when_dropped() {
        let g = Arc::new(Governor::new(Limits {
            max_streams_per_token: 1,
            ..Limits::NONE
        }));
        let first = g.open_stream("t").expect("first");
        let refused = g
            .open_stream("t")
            .err()
            .expect("second refused")
            .to_string();
        assert!(refused.contains("max-streams-per-token"), "{refused}");
        drop(first);
        g.open_stream("t").expect("free again");
    }
}
