"""Pure image primitives: decoding with limits, crops for clients, OCR port."""
