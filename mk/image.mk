# The lab's guest and container image: one debootstrap root filesystem
# cached under $(IMAGE_CACHE)/<recipe-hash>/, turned into base.qcow2 + kernel for
# the guests and into the docker images vmparity-base/vmparity-bench:<hash>.

IMAGE_CACHE    ?= $(CACHE_DIR)/image
IMAGE_RECIPE   ?= vm-templates/image/build-image.sh
VARIANTS_FILE  ?= vm-templates/variants.yml
CONTAINER_VARIANTS_FILE ?= docker/variants.yml
IMAGE_TEST_ARGS ?=

# The templates' schema test needs no daemon: `make check` runs it (test-templates).
IMAGE_TEMPLATE_TESTS ?= tests/image/test_domain_template.py

.PHONY: image docker-image variants-check test-image test-templates

image: ## Build the guest/container root filesystem image (cached; rebuilt only when the recipe changes)
	CACHE_DIR=$(CACHE_DIR) $(IMAGE_RECIPE)

# The containers role is the one builder of the container image; its image
# tasks (tag containers_image) run here alone, against the local dockerd.
docker-image: image $(STAMPS)/venv ## Import the image into docker (vmparity-bench:<hash> on vmparity-base:<hash>) as the containers role does
	$(LAB_ANSIBLE) $(LAB_PLAYBOOKS)/lab-up.yml --tags containers_image $(LAB_ARGS)

variants-check: $(STAMPS)/venv ## Check vm-templates/variants.yml and docker/variants.yml against their schemas and print the matrix
	$(VMPARITY) lab variants guests $(VARIANTS_FILE)
	$(VMPARITY) lab variants containers $(CONTAINER_VARIANTS_FILE)

test-image: image $(STAMPS)/venv ## Test the image: the cache is complete and reused, a failed build leaves nothing, one TCG guest boots to SSH, the container builds and runs
	CACHE_DIR=$(CACHE_DIR) $(PY) -m pytest -q $(PYTEST_FLAGS) -m lab tests/image \
	  $(addprefix --ignore=,$(IMAGE_TEMPLATE_TESTS)) $(IMAGE_TEST_ARGS)

test-templates: $(STAMPS)/venv ## Render domain.xml.j2 for every variant under KVM and TCG and validate it against libvirt's schema (no daemon)
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) $(IMAGE_TEMPLATE_TESTS)

TEST_TARGETS += test-image
CHECK_TARGETS += test-templates variants-check
