//! A rules-compliance referee for board games, driven by event sourcing.
//!
//! Boards report what happens at a table as events; the referee folds a game's events into
//! its position and its rulings, each with the article it applies and the events it rests on.
//!
//! ```
//! use referee::event::parse_log;
//! use referee::referee::{RulingKind, replay};
//!
//! let log = parse_log(r#"
//! {"type":"game","variant":"xiangqi","id":"demo"}
//! {"type":"move","side":"red","from":"h2","to":"e2"}
//! {"type":"move","side":"black","from":"h9","to":"g7"}
//! {"type":"move","side":"red","from":"b0","to":"d1"}
//! "#).unwrap();
//! let referee = replay(&log.header, &log.events).unwrap();
//! let ruling = &referee.rulings()[0];
//! assert_eq!((ruling.at, ruling.kind), (3, RulingKind::IllegalMove));
//! assert!(ruling.text.contains("blocked at c0"));
//! ```

pub mod access;
pub mod audit;
pub mod bridge;
pub mod cli;
pub mod event;
pub mod games;
pub mod log;
pub(crate) mod named_enum;
pub(crate) mod quote;
pub mod records;
pub mod referee;
pub mod service;
pub mod stored;
