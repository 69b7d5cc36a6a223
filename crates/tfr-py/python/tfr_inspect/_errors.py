"""Exceptions raised by tfr_inspect, with the command line's words."""


class DamagedRecordError(ValueError):
    """A record whose frame is damaged: its bytes are not handed out.

    ``file``, ``record`` (its number, from 0) and ``offset`` (where its frame starts) say which;
    ``reason`` says what is wrong with it.
    """

    def __init__(self, file, record, offset, reason):
        super().__init__(f"{file}: record {record} at byte {offset} is damaged: {reason}")
        self.file = file
        self.record = record
        self.offset = offset
        self.reason = reason

    def __reduce__(self):
        return (type(self), (self.file, self.record, self.offset, self.reason))


class DamagedRecordWarning(UserWarning):
    """A damaged record skipped by a reader that goes on past damage (``File.batches``)."""
