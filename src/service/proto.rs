//! The generated gRPC types of `proto/referee/v1/referee.proto`.

#![allow(clippy::all, clippy::pedantic, missing_docs)]

tonic::include_proto!("referee.v1");

/// The encoded descriptor set, served by gRPC reflection so grpcurl needs no proto file.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/referee_descriptor.bin"));
