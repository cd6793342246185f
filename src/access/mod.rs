//! Who may do what: bearer tokens with roles, issued by the CLI and stored hashed.
//!
//! - a **board** token is bound to one game and one side (or both sides of one board) and may
//!   only append that side's events to that game, and read that game;
//! - an **arbiter** token covers a tournament — the games whose id starts with its prefix —
//!   and may create games, append `arbiter` events and read them;
//! - an **auditor** token reads every game and writes nothing.
//!
//! The store keeps only each token's SHA-256, so a copy of the data directory does not leak
//! usable tokens. Access control is on as soon as one token has been issued.

mod store;
mod token;

pub use store::{TOKEN_FILE, TokenStore};
pub use token::{Grant, Role, SideScope};

use thiserror::Error;

/// Why a request was refused by access control.
#[derive(Debug, Error, PartialEq)]
pub enum Denied {
    /// No token, or one the store does not know.
    #[error("{0}")]
    Unauthenticated(String),
    /// A known token asked for something outside its role or scope.
    #[error("{0}")]
    PermissionDenied(String),
}
