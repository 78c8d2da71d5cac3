"""One small module per documented wire format: read a request, build the answer and the events that stream it."""
