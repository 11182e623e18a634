"""Players, staff and the service's own endpoints (health, tokens) over the REST API."""
