"""The Kubernetes object model: kinds, quantities, names and labels, validation,
defaulting, manifest loading and the errors that cross the API.

Objects are plain JSON-shaped dicts exactly as Kubernetes serialises them; this
package only reads, checks and fills them in. It imports nothing above itself.
"""
