//! `referee token issue|list|revoke|off`: bearer tokens for boards, arbiters and auditors,
//! and the deliberate way to turn access control off.

use std::path::Path;
use std::process::ExitCode;

use crate::access::expiry;
use crate::access::{Grant, Revoked, Role, SideScope, State, StoreError, TokenStore, TurnedOff};

/// What `token issue` was asked for.
pub struct Request<'a> {
    pub id: &'a str,
    pub role: &'a str,
    pub game: Option<&'a str>,
    pub side: Option<&'a str>,
    pub tournament: Option<&'a str>,
    /// A date (the end of that day UTC) or an RFC 3339 timestamp.
    pub expires: Option<&'a str>,
}

pub fn issue(data: &Path, request: &Request<'_>) -> ExitCode {
    let issued =
        grant(request).and_then(|g| TokenStore::new(data).issue(g).map_err(|e| e.to_string()));
    match issued {
        Ok(issued) => {
            let until = match request.expires.and_then(|e| expiry::parse(e, 0).ok()) {
                Some(ms) => format!("valid until {}", expiry::render(ms)),
                None => "valid until revoked".into(),
            };
            eprintln!(
                "token \"{}\" issued, {until}; it is shown once and stored only hashed",
                request.id
            );
            if let Some(user) = issued.given_to {
                eprintln!(
                    "the token files were given to user \"{user}\", who owns {}: the server \
                     must run as that user",
                    data.display()
                );
            }
            println!("{}", issued.secret);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
    }
}

pub fn list(data: &Path) -> ExitCode {
    match TokenStore::new(data).grants() {
        Ok(grants) => {
            print!("{}", table(&grants, now_ms()));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Revokes a token; exit 2 for an id never issued, 0 (with a note) if it was revoked already.
pub fn revoke(data: &Path, id: &str) -> ExitCode {
    match TokenStore::new(data).revoke(id) {
        Ok(Revoked::Now) => {
            eprintln!("token \"{id}\" revoked: a running server refuses it within a second");
            ExitCode::SUCCESS
        }
        Ok(Revoked::Already(at)) => {
            eprintln!(
                "token \"{id}\" was revoked already, on {}: nothing changed",
                expiry::render(at)
            );
            ExitCode::SUCCESS
        }
        Err(e @ StoreError::UnknownId(_)) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The tokens as a table with a header: id, role, scope, side, state at `now_ms`.
fn table(grants: &[Grant], now_ms: u64) -> String {
    let header = ["ID", "ROLE", "SCOPE", "SIDE", "STATE"].map(String::from);
    let rows: Vec<[String; 5]> = std::iter::once(header)
        .chain(grants.iter().map(|g| row(g, now_ms)))
        .collect();
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let widths = [width(0), width(1), width(2), width(3)];
    rows.iter()
        .map(|r| {
            let mut line = String::new();
            for (cell, w) in r.iter().zip(widths) {
                line.push_str(&format!("{cell:<w$}  "));
            }
            line.push_str(&r[4]);
            line + "\n"
        })
        .collect()
}

fn row(g: &Grant, now_ms: u64) -> [String; 5] {
    let role = match g.role {
        Role::Board => "board",
        Role::Arbiter => "arbiter",
        Role::Auditor => "auditor",
    };
    let scope = match (&g.game, &g.tournament) {
        (Some(game), _) => format!("game {game}"),
        (None, Some(prefix)) => format!("games {prefix}*"),
        (None, None) => "all games".into(),
    };
    let side = match g.side {
        Some(SideScope::First) => "first",
        Some(SideScope::Second) => "second",
        Some(SideScope::Both) => "both",
        None => "-",
    };
    let state = match g.state(now_ms) {
        State::Active => "active".into(),
        State::Expires(at) => format!("active, expires {}", expiry::render(at)),
        State::Expired(at) => format!("expired {}", expiry::render(at)),
        State::Revoked(at) => format!("revoked {}", expiry::render(at)),
    };
    [g.id.clone(), role.into(), scope, side.into(), state]
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Turns access control off; exit 2 while tokens remain (they would stay valid unchecked).
pub fn off(data: &Path) -> ExitCode {
    match TokenStore::new(data).turn_off() {
        Ok(TurnedOff::Now) => {
            eprintln!(
                "access control is off: every call is accepted without a token until a token \
                 is issued again"
            );
            ExitCode::SUCCESS
        }
        Ok(TurnedOff::Already) => {
            eprintln!("access control was off already");
            ExitCode::SUCCESS
        }
        Err(e @ StoreError::TokensRemain { .. }) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}

fn grant(r: &Request<'_>) -> Result<Grant, String> {
    let role = match r.role {
        "board" => Role::Board,
        "arbiter" => Role::Arbiter,
        "auditor" => Role::Auditor,
        other => {
            return Err(format!(
                "unknown role \"{other}\" (expected board, arbiter or auditor)"
            ));
        }
    };
    let side = r
        .side
        .map(|s| match s {
            "white" | "red" | "first" => Ok(SideScope::First),
            "black" | "second" => Ok(SideScope::Second),
            "both" => Ok(SideScope::Both),
            other => Err(format!(
                "unknown side \"{other}\" (expected white, red, black or both)"
            )),
        })
        .transpose()?;
    match (role, r.game, side, r.tournament) {
        (Role::Board, Some(_), Some(_), None)
        | (Role::Arbiter, None, None, Some(_))
        | (Role::Auditor, None, None, None) => {}
        (Role::Board, ..) => {
            return Err("a board token needs --game and --side, and no --tournament".into());
        }
        (Role::Arbiter, ..) => {
            return Err(
                "an arbiter token needs --tournament (a game-id prefix), and no --game or --side"
                    .into(),
            );
        }
        (Role::Auditor, ..) => {
            return Err(
                "an auditor token reads every game: give no --game, --side or --tournament".into(),
            );
        }
    }
    if r.id.is_empty() || !r.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!(
            "token id \"{}\" must be letters, digits and '-'",
            r.id
        ));
    }
    let issued_ms = now_ms();
    let expires_ms = r
        .expires
        .map(|e| expiry::parse(e, issued_ms))
        .transpose()
        .map_err(|e| e.to_string())?;
    Ok(Grant {
        id: r.id.to_string(),
        hash: String::new(),
        role,
        game: r.game.map(String::from),
        side,
        tournament: r.tournament.map(String::from),
        issued_ms,
        expires_ms,
        revoked_ms: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(id: &str, role: Role) -> Grant {
        Grant {
            id: id.into(),
            hash: String::new(),
            role,
            game: None,
            side: None,
            tournament: None,
            issued_ms: 0,
            expires_ms: None,
            revoked_ms: None,
        }
    }

    #[test]
    fn the_list_shows_each_tokens_state_in_columns() {
        let now = 1_796_428_800_000;
        let mut board = grant("r1-b1-red", Role::Board);
        (board.game, board.side) = (Some("r1-b1".into()), Some(SideScope::First));
        let mut arbiter = grant("arb", Role::Arbiter);
        (arbiter.tournament, arbiter.expires_ms) = (Some("2026-".into()), Some(now + 1000));
        let mut old = grant("old", Role::Auditor);
        old.expires_ms = Some(now - 86_400_000);
        let mut fed = grant("fed", Role::Auditor);
        (fed.expires_ms, fed.revoked_ms) = (Some(now - 1), Some(now - 3_600_000));
        let listed = table(&[board, arbiter, old, fed], now);
        let expected = [
            "ID         ROLE     SCOPE         SIDE   STATE",
            "r1-b1-red  board    game r1-b1    first  active",
            "arb        arbiter  games 2026-*  -      active, expires 2026-12-05T00:00:01Z",
            "old        auditor  all games     -      expired 2026-12-04T00:00:00Z",
            "fed        auditor  all games     -      revoked 2026-12-04T23:00:00Z",
        ];
        assert_eq!(listed.lines().collect::<Vec<_>>(), expected);
        assert_eq!(table(&[], now), "ID  ROLE  SCOPE  SIDE  STATE\n");
    }
}
