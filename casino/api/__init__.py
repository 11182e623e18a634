"""The REST API's shared pieces: error shape, authentication, health, pagination."""
