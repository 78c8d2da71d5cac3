"""One small module per documented wire format: read a request's history, build a response body."""
