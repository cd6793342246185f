//! The integration tests, one binary (faster to link on a small machine), one module per area.

mod common;
mod crash;
mod fixtures;
mod perft;
mod service;
mod xiangqi_ccpd;
