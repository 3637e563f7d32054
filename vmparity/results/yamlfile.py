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
# libyaml's parser where PyYAML was built with it: the same documents, events and marks as the
# pure-Python one at a fifteenth of the time (the package's rules, 28 kB, in 10 ms instead of 155
# read three times over), which every `explain`, report and lab check pays on start.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(path, what="a YAML data file"):
    """The text of the YAML file path, bounded (bounded.read_text)."""
    return bounded.read_text(path, MAX_BYTES, what)


def compose(text, path):
    """The node tree of text, after check_bounds; yaml.YAMLError for text that is not YAML."""
    return compose_and_load(text, path)[0]


def compose_and_load(text, path):
    """(node tree, data) of text, both from one parse after check_bounds; yaml.YAMLError for text
    that is not YAML. The data is yaml.safe_load's, built from the node tree once it is in bounds."""
    check_bounds(text, path)
    loader = LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _check_expanded_size(path, node)
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def safe_load(text, path):
    """yaml.safe_load of text, within the bounds (compose); yaml.YAMLError for text that is not YAML."""
    return compose_and_load(text, path)[1]


def check_bounds(text, path):
    """InputError at the first collection nested deeper than MAX_DEPTH (the event stream is read
    without recursion, so the check itself cannot fail that way)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=LOADER):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(path, event.start_mark)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError as e:
        # libyaml's scanner reads a run of `[` ahead of its events and stops at its own limit (1,000)
        # before this count sees the 65th
        if "maximum nesting depth" in str(e):
            raise _too_deep(path, getattr(e, "problem_mark", None)) from None
        raise


def _too_deep(path, mark):
    return InputError(path, f"nested deeper than {MAX_DEPTH} levels: expected a data file of the lab",
                      mark.line + 1 if mark is not None else None)


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
