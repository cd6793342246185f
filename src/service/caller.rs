//! Who is calling: the token's grant when access control is on, and the writer identity
//! recorded with every event the call appends.

use tonic::Request;

use crate::access::{Access, Denied, Grant, SideScope, TokenStore};
use crate::event::Side;

use super::Error;

/// The scheme of an `authorization` value, with the one space that ends it (RFC 6750); the
/// scheme's letters in any case (RFC 9110 11.1: auth schemes are case-insensitive).
const BEARER: &[u8] = b"Bearer ";

/// The token of an `authorization` value, which must be exactly `Bearer <token>`: the
/// scheme (in any case: `bearer`, `BEARER`), one space, and a token of visible ASCII. Anything else (no scheme,
/// another scheme, two spaces, a trailing space) is refused, not repaired: a client that
/// sends it has a bug that would otherwise only show on a stricter server. The console's
/// HTTP API hands its header to the same check.
fn bearer(value: &[u8]) -> Result<&str, Denied> {
    let malformed = || {
        Denied::Unauthenticated(
            "malformed authorization header: send exactly \"authorization: Bearer <token>\" \
             (the word Bearer, one space, the token, nothing after it)"
                .into(),
        )
    };
    let token = match value.split_at_checked(BEARER.len()) {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case(BEARER) => token,
        _ => return Err(malformed()),
    };
    if token.is_empty() || !token.iter().all(u8::is_ascii_graphic) {
        return Err(malformed());
    }
    std::str::from_utf8(token).map_err(|_| malformed())
}

/// The caller of one request.
#[derive(Clone, Debug)]
pub struct Caller {
    /// None when access control is off (no token has been issued, or `token off`).
    grant: Option<Grant>,
    /// Recorded as the writer of appended events: `token ID`, or the peer address.
    pub writer: String,
}

impl Caller {
    /// Identifies the caller of `request` against `tokens` (None: access control off).
    pub fn of<T>(request: &Request<T>, tokens: Option<&TokenStore>) -> Result<Caller, Error> {
        let peer = request
            .remote_addr()
            .map_or_else(|| "local".to_string(), |a| format!("peer {a}"));
        let access = match tokens {
            Some(store) => store
                .access()
                .map_err(|e| Error::Unavailable(format!("token store: {e}")))?,
            None => Access::Off,
        };
        // With access control off the header is not read: there is no token to check.
        let secret = match (&access, request.metadata().get("authorization")) {
            (Access::On(_), Some(value)) => Some(bearer(value.as_bytes())?),
            (Access::Off, _) | (_, None) => None,
        };
        Ok(match access.authenticate(secret)? {
            Some(grant) => Caller {
                writer: format!("token {}", grant.id),
                grant: Some(grant),
            },
            None => Caller {
                grant: None,
                writer: peer,
            },
        })
    }

    /// A spectator of the public view (`/public`, only with a delay set): no token, reads
    /// every game but only as far as the delay allows (the console cuts each read there),
    /// and never writes (the public routes are reads only).
    pub fn spectator() -> Caller {
        Caller {
            grant: None,
            writer: "public view".into(),
        }
    }

    /// The id of the caller's token; None when access control is off.
    pub fn token_id(&self) -> Option<&str> {
        self.grant.as_ref().map(|g| g.id.as_str())
    }

    pub fn may_read(&self, game: &str) -> Result<(), Error> {
        self.grant
            .as_ref()
            .map_or(Ok(()), |g| g.may_read(game).map_err(Error::from))
    }

    pub fn may_create(&self, game: &str) -> Result<(), Error> {
        self.grant
            .as_ref()
            .map_or(Ok(()), |g| g.may_create(game).map_err(Error::from))
    }

    /// May the caller append an event of `side` to `game`?
    pub fn may_append(&self, game: &str, side: Side) -> Result<(), Error> {
        let scope = match side {
            Side::First => Some(SideScope::First),
            Side::Second => Some(SideScope::Second),
            // A board's report shows both players' pieces: a board token for both sides.
            Side::Board => Some(SideScope::Both),
            Side::Arbiter => None,
        };
        self.grant
            .as_ref()
            .map_or(Ok(()), |g| g.may_append(game, scope).map_err(Error::from))
    }

    /// May the caller use the audit calls over `scope` (a game or an event's prefix)?
    pub fn may_audit(&self, scope: Option<&str>) -> Result<(), Error> {
        self.grant
            .as_ref()
            .map_or(Ok(()), |g| g.may_audit(scope).map_err(Error::from))
    }

    pub fn lists(&self, game: &str) -> bool {
        self.grant.as_ref().is_none_or(|g| g.lists(game))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bearer_one_space_token_is_a_token() {
        assert_eq!(bearer(b"Bearer rt_b1_00ff"), Ok("rt_b1_00ff"));
        // The scheme in any case (RFC 9110 11.1).
        assert_eq!(bearer(b"bearer rt_b1_00ff"), Ok("rt_b1_00ff"));
        assert_eq!(bearer(b"BEARER rt_b1_00ff"), Ok("rt_b1_00ff"));
        for bad in [
            &b"rt_b1_00ff"[..],
            b"Bearer  rt_b1_00ff",
            b"Bearer rt_b1_00ff ",
            b"Bearer\trt_b1_00ff",
            b"Bearerrt_b1_00ff",
            b"Basic rt_b1_00ff",
            b"Bearer ",
            b"Bearer rt_b1 00ff",
            b"Bearer rt_\xc3\xa9",
        ] {
            let refused = bearer(bad).unwrap_err();
            assert!(
                refused.to_string().contains("Bearer <token>"),
                "{:?}: {refused}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
