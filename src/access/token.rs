//! A token's grant: its role and scope, and the checks each call makes against it.

use serde::{Deserialize, Serialize};

use crate::quote::quote;

use super::{Denied, expiry};

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Board,
    Arbiter,
    Auditor,
}

/// The sides a board token may write for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SideScope {
    /// White or red.
    First,
    /// Black.
    Second,
    /// Both players of one board.
    Both,
}

/// A token as stored: its id, the SHA-256 of its secret, and what it grants.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Public name of the token, recorded as the writer of every event it appends.
    pub id: String,
    /// SHA-256 of the secret, hex.
    pub hash: String,
    pub role: Role,
    /// Board: the game it is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// Board: the side(s) it writes for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<SideScope>,
    /// Arbiter: the prefix of the game ids of its tournament.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    pub issued_ms: u64,
    /// When the token stops being accepted (ms since 1970, refused from then on); None: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ms: Option<u64>,
    /// When the token was revoked: set from the token file's revocation lines, never written
    /// on the grant's own line (the file is only ever appended to).
    #[serde(skip)]
    pub revoked_ms: Option<u64>,
}

/// Whether a token is accepted at a given moment, and until or since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Accepted, with no end set.
    Active,
    /// Accepted until this moment (ms since 1970).
    Expires(u64),
    /// Refused since this moment, its expiry.
    Expired(u64),
    /// Refused since it was revoked at this moment (whatever its expiry).
    Revoked(u64),
}

impl Grant {
    /// The token's state at `now_ms`: a revocation outranks an expiry.
    pub fn state(&self, now_ms: u64) -> State {
        match (self.revoked_ms, self.expires_ms) {
            (Some(at), _) => State::Revoked(at),
            (None, Some(at)) if at <= now_ms => State::Expired(at),
            (None, Some(at)) => State::Expires(at),
            (None, None) => State::Active,
        }
    }

    /// Whether the token is accepted at `now_ms`; if not, why, for an `UNAUTHENTICATED`.
    pub fn valid_at(&self, now_ms: u64) -> Result<(), Denied> {
        let refused = |what: &str, at: u64| {
            Err(Denied::Unauthenticated(format!(
                "token \"{}\" {what} {}",
                self.id,
                expiry::render(at)
            )))
        };
        match self.state(now_ms) {
            State::Active | State::Expires(_) => Ok(()),
            State::Expired(at) => refused("expired on", at),
            State::Revoked(at) => refused("was revoked on", at),
        }
    }

    /// May this token read `game`?
    pub fn may_read(&self, game: &str) -> Result<(), Denied> {
        match self.role {
            Role::Auditor => Ok(()),
            Role::Board | Role::Arbiter if self.covers(game) => Ok(()),
            _ => Err(self.deny(&format!("read game {}", quote(game)))),
        }
    }

    /// May this token create `game`?
    pub fn may_create(&self, game: &str) -> Result<(), Denied> {
        match self.role {
            Role::Arbiter if self.covers(game) => Ok(()),
            _ => Err(self.deny(&format!("create game {}", quote(game)))),
        }
    }

    /// May this token append an event of `side` (None = the arbiter) to `game`?
    pub fn may_append(&self, game: &str, side: Option<SideScope>) -> Result<(), Denied> {
        let allowed = match (self.role, side) {
            (Role::Board, Some(s)) => {
                self.covers(game) && (self.side == Some(SideScope::Both) || self.side == Some(s))
            }
            (Role::Arbiter, None) => self.covers(game),
            _ => false,
        };
        let whose = match side {
            Some(SideScope::First) => "the first player's",
            Some(SideScope::Both) => "a whole board's",
            Some(_) => "the second player's",
            None => "arbiter",
        };
        if allowed {
            Ok(())
        } else {
            Err(self.deny(&format!("append {whose} events to game {}", quote(game))))
        }
    }

    /// May this token use the audit calls (export, verify, the public key) over `scope`, a
    /// game id or an event's game-id prefix (None: no particular game)? Auditors may over
    /// every game, arbiters over their tournament's; boards never.
    pub fn may_audit(&self, scope: Option<&str>) -> Result<(), Denied> {
        let allowed = match (self.role, scope) {
            (Role::Auditor, _) | (Role::Arbiter, None) => true,
            (Role::Arbiter, Some(scope)) => self.covers(scope),
            (Role::Board, _) => false,
        };
        if allowed {
            Ok(())
        } else {
            let what = scope.map_or_else(String::new, |s| format!(" of {}", quote(s)));
            Err(self.deny(&format!("use the audit calls{what}")))
        }
    }

    /// May this token list `game` among all games?
    pub fn lists(&self, game: &str) -> bool {
        self.role == Role::Auditor || self.covers(game)
    }

    fn covers(&self, game: &str) -> bool {
        match self.role {
            Role::Board => self.game.as_deref() == Some(game),
            Role::Arbiter => self
                .tournament
                .as_deref()
                .is_some_and(|t| game.starts_with(t)),
            Role::Auditor => true,
        }
    }

    fn deny(&self, what: &str) -> Denied {
        let role = match self.role {
            Role::Board => "board",
            Role::Arbiter => "arbiter",
            Role::Auditor => "auditor",
        };
        Denied::PermissionDenied(format!("token \"{}\" ({role}) may not {what}", self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(
        role: Role,
        game: Option<&str>,
        side: Option<SideScope>,
        tournament: Option<&str>,
    ) -> Grant {
        Grant {
            id: "t".into(),
            hash: String::new(),
            role,
            game: game.map(String::from),
            side,
            tournament: tournament.map(String::from),
            issued_ms: 0,
            expires_ms: None,
            revoked_ms: None,
        }
    }

    #[test]
    fn a_revoked_or_expired_token_is_refused_saying_since_when() {
        let mut g = grant(Role::Auditor, None, None, None);
        assert_eq!((g.state(5), g.valid_at(5)), (State::Active, Ok(())));
        g.expires_ms = Some(1_796_428_800_000);
        assert_eq!(
            g.state(1_796_428_799_999),
            State::Expires(1_796_428_800_000)
        );
        assert!(g.valid_at(1_796_428_799_999).is_ok());
        assert_eq!(
            g.valid_at(1_796_428_800_000),
            Err(Denied::Unauthenticated(
                "token \"t\" expired on 2026-12-05T00:00:00Z".into()
            ))
        );
        g.revoked_ms = Some(1_796_428_000_000);
        assert_eq!(g.state(0), State::Revoked(1_796_428_000_000));
        assert_eq!(
            g.valid_at(1_796_428_800_000),
            Err(Denied::Unauthenticated(
                "token \"t\" was revoked on 2026-12-04T23:46:40Z".into()
            ))
        );
    }

    #[test]
    fn a_board_token_writes_only_its_side_of_its_game() {
        let red = grant(Role::Board, Some("g1"), Some(SideScope::First), None);
        assert!(red.may_append("g1", Some(SideScope::First)).is_ok());
        assert!(red.may_append("g1", Some(SideScope::Second)).is_err());
        assert!(red.may_append("g2", Some(SideScope::First)).is_err());
        assert!(red.may_append("g1", None).is_err());
        assert!(red.may_create("g1").is_err());
        assert!(red.may_read("g1").is_ok() && red.may_read("g2").is_err());
        let both = grant(Role::Board, Some("g1"), Some(SideScope::Both), None);
        assert!(both.may_append("g1", Some(SideScope::Second)).is_ok());
    }

    #[test]
    fn an_arbiter_covers_its_tournament_and_an_auditor_only_reads() {
        let arbiter = grant(Role::Arbiter, None, None, Some("2026-ch-"));
        assert!(arbiter.may_create("2026-ch-r1-b1").is_ok());
        assert!(arbiter.may_create("2025-open-r1").is_err());
        assert!(arbiter.may_append("2026-ch-r1-b1", None).is_ok());
        assert!(
            arbiter
                .may_append("2026-ch-r1-b1", Some(SideScope::First))
                .is_err()
        );
        assert!(arbiter.may_audit(Some("2026-ch-r1-")).is_ok() && arbiter.may_audit(None).is_ok());
        assert!(arbiter.may_audit(Some("2025-open-")).is_err());
        let board = grant(Role::Board, Some("g1"), Some(SideScope::Both), None);
        assert!(board.may_audit(Some("g1")).is_err() && board.may_audit(None).is_err());
        let auditor = grant(Role::Auditor, None, None, None);
        assert!(auditor.may_audit(Some("2025-open-")).is_ok());
        assert!(auditor.may_read("anything").is_ok());
        assert!(auditor.may_append("anything", None).is_err() && auditor.may_create("x").is_err());
    }
}
