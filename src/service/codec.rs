//! The protobuf codec of the generated server and client: prost's, except that a message
//! that is not valid protobuf is `INVALID_ARGUMENT`. tonic-prost reports it as `INTERNAL`,
//! which tells the caller the server is broken when it was the request.

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// [`ProstCodec`] whose decode errors are `INVALID_ARGUMENT`; `build.rs` points the
/// generated code at it.
#[derive(Debug, Clone)]
pub struct ProtoCodec<T, U>(ProstCodec<T, U>);

/// The generated code makes one per call; no bounds on the messages, unlike a derive.
impl<T, U> Default for ProtoCodec<T, U> {
    fn default() -> Self {
        ProtoCodec(ProstCodec::default())
    }
}

impl<T, U> Codec for ProtoCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProtoDecoder<U>;

    fn encoder(&mut self) -> ProstEncoder<T> {
        self.0.encoder()
    }

    fn decoder(&mut self) -> ProtoDecoder<U> {
        ProtoDecoder(self.0.decoder())
    }
}

/// prost's decoder, its errors as `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct ProtoDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for ProtoDecoder<U> {
    type Item = U;
    type Error = Status;

    /// prost's decoder fails only on bytes that are not a valid message. The generated
    /// client decodes responses with the same codec, so there the same failure means a
    /// malformed response.
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0
            .decode(buf)
            .map_err(|e| Status::invalid_argument(format!("malformed request: {}", e.message())))
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
