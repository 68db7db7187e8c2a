# A chart controller's command, as its package's /usr/bin/NAME is: chartd on the chart's binding.
# Sourced by scripts/package-deb.sh (the command it runs while building the package) and
# scripts/test.sh (what the loop and idle checks run).
#
#   chart_command FOLDER CHARTD DIR   writes DIR/PRODUCT running CHARTD on the binding of the chart
#                                     controller in FOLDER (Examples/Charts/NAME, its
#                                     packaging/product.conf naming PRODUCT and CHART_BINDING), and
#                                     prints PRODUCT

chart_command() {
    local folder=$1 chartd=$2 dir=$3 product binding
    # shellcheck disable=SC1091 # a chart's own description: bash assignments
    product=$(. "$folder/packaging/product.conf" && echo "$PRODUCT")
    # shellcheck disable=SC1091
    binding=$(. "$folder/packaging/product.conf" && echo "$CHART_BINDING")
    [ -n "$product" ] && [ -n "$binding" ] || { echo "error: $folder/packaging/product.conf names no PRODUCT or no CHART_BINDING" >&2; return 1; }
    printf '#!/bin/sh\nexec %q --chart %q "$@"\n' "$(realpath "$chartd")" "$(realpath "$folder/$binding")" > "$dir/$product"
    chmod 0755 "$dir/$product"
    echo "$product"
}
