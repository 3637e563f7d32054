"""YAML data read without trusting it: bounded as a record is (bounded.py), nested at most
MAX_DEPTH levels and, with its aliases expanded, at most MAX_ITEMS items, before anything walks
it. The lab's YAML data (the variants files, lab/schema_file.py) and a rules file given to
`explain --rules` are read through here.

YAML's aliases repeat a subtree without repeating its text: 372 bytes of anchors nested nine
deep stand for a billion items, and every reader that walks the data (a line index, a schema's
validator, the rules' checks, the roles) walks them all.
"""

import yaml

from ..errors import InputError
from . import bounded

# A data file of the lab is a few kilobytes; anything this large is a mistake.
MAX_BYTES = 1024 * 1024
# The variants files hold a few hundred items and nest five deep, the rules a few thousand and six.
MAX_ITEMS = 20_000  # keys, values and list items, with every alias expanded
MAX_DEPTH = 64  # composing a node is recursive: ten thousand `[` would end it in a RecursionError


def read_text(path, what="a YAML data file"):
    """The text of the YAML file path, bounded (bounded.read_text)."""
    return bounded.read_text(path, MAX_BYTES, what)


def compose(text, path):
    """The node tree of text, after check_bounds; yaml.YAMLError for text that is not YAML."""
    check_bounds(text, path)
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if node is not None:
        _check_expanded_size(path, node)
    return node


def safe_load(text, path):
    """yaml.safe_load of text, within the bounds (compose); yaml.YAMLError for text that is not YAML."""
    compose(text, path)
    return yaml.safe_load(text)


def check_bounds(text, path):
    """InputError at the first collection nested deeper than MAX_DEPTH (the event stream is read
    without recursion, so the check itself cannot fail that way)."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(path, f"nested deeper than {MAX_DEPTH} levels: expected a data file of the lab",
                                 event.start_mark.line + 1)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _check_expanded_size(path, root):
    """InputError when the document, its aliases expanded, holds more than MAX_ITEMS items.
    Each node's expanded size is counted once (a shared node is one object), so the count
    costs the size of the text, not of what it stands for."""
    sizes = {}

    def size(node):
        if id(node) not in sizes:
            children = ([n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode)
                        else node.value if isinstance(node, yaml.SequenceNode) else ())
            sizes[id(node)] = min(1 + sum(size(c) for c in children), MAX_ITEMS + 1)
        return sizes[id(node)]

    if size(root) > MAX_ITEMS:
        raise InputError(path, f"its aliases (*name) expand to more than {MAX_ITEMS} items: expected a data "
                               "file of the lab (write the repeated part out, or fewer aliases)")
