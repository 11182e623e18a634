"""The REST API's shared pieces: error shape, permissions, fields, pagination, schema."""
