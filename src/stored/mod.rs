//! A stored game read back and folded: the layer between the log (bytes in order) and its
//! readers — the service, the audit and the CLI — so each reads and folds a game one way.
//!
//! ```no_run
//! # async fn demo(log: &referee::log::SledLog) -> Result<(), referee::stored::Error> {
//! let game = referee::stored::Fold::load(log, "r3-b12", None).await?;
//! println!("{} rulings, head {}", game.referee.rulings().len(), hex::encode(game.head_hash));
//! # Ok(()) }
//! ```

mod error;
mod fold;
mod load;

pub use error::Error;
pub use fold::{Fold, Last, LastMove};
pub use load::{LoadedLog, load_log, read_event};
