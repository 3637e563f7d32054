# The lab's guest and container image: one debootstrap root filesystem
# cached under $(IMAGE_CACHE)/<recipe-hash>/, turned into base.qcow2 + kernel for
# the guests and into the docker images vmparity-base/vmparity-bench:<hash>.

IMAGE_CACHE    ?= $(CACHE_DIR)/image
IMAGE_RECIPE   ?= vm-templates/image/build-image.sh
VARIANTS_FILE  ?= vm-templates/variants.yml
IMAGE_TEST_ARGS ?=

.PHONY: image docker-image variants-check test-image

image: ## Build the guest/container root filesystem image (cached; rebuilt only when the recipe changes)
	CACHE_DIR=$(CACHE_DIR) $(IMAGE_RECIPE)

docker-image: image $(STAMPS)/venv ## Import the image into docker (vmparity-base:<hash>) and build docker/Dockerfile on it
	CACHE_DIR=$(CACHE_DIR) $(PY) docker/lab_image.py

variants-check: $(STAMPS)/venv ## Check vm-templates/variants.yml and docker/variants.yml and print the matrix
	$(PY) vm-templates/variants_check.py $(VARIANTS_FILE)
	$(PY) docker/container_variants.py

test-image: image $(STAMPS)/venv ## Test the image: templates validate, bad variants fail, one TCG guest boots to SSH, the container builds and runs
	CACHE_DIR=$(CACHE_DIR) $(PY) -m pytest -q -m lab tests/image $(IMAGE_TEST_ARGS)

TEST_TARGETS += test-image
