"""Where the lab's data is: the repository checkout this package runs from.

The lab layer runs from a clone (`make deps` installs the package with
`pip install -e .`), so the variant files, their schemas and the domain
template are found in the repository's vm-templates/ and docker/.
"""

from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[2]
VM_TEMPLATES = REPO_DIR / "vm-templates"
DOCKER_DIR = REPO_DIR / "docker"

GUEST_VARIANTS = VM_TEMPLATES / "variants.yml"
GUEST_SCHEMA = VM_TEMPLATES / "variants.schema.json"
CONTAINER_VARIANTS = DOCKER_DIR / "variants.yml"
CONTAINER_SCHEMA = DOCKER_DIR / "variants.schema.json"
DOMAIN_TEMPLATE = VM_TEMPLATES / "domain.xml.j2"
