//! The integration tests, one binary (faster to link on a small machine), one module per area.

mod chess_differential;
mod common;
mod crash;
mod fixtures;
mod perft;
mod service;
