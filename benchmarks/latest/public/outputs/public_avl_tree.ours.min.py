assert None
