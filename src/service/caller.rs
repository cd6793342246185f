//! Who is calling: the token's grant when access control is on, and the writer identity
//! recorded with every event the call appends.

use tonic::Request;

use crate::access::{Access, Grant, SideScope, TokenStore};
use crate::event::Side;

use super::Error;

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
        let secret = request
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.strip_prefix("Bearer ").unwrap_or(v).trim());
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
