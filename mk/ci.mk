# GitHub workflows: actionlint (a Go module, pinned) checks every workflow.

ACTIONLINT_VERSION ?= v1.7.12
ACTIONLINT         ?= $(GOBIN_DIR)/actionlint

.PHONY: lint-workflows

CHECK_TARGETS += lint-workflows

lint-workflows: $(ACTIONLINT) ## Check every .github/workflows file with actionlint
	$(ACTIONLINT) -color=false .github/workflows/*.yml

$(ACTIONLINT):
	@mkdir -p $(GOBIN_DIR)
	GOBIN=$(GOBIN_DIR) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
