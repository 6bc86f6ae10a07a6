"""Small reusable renderables and widgets of the dashboard."""
