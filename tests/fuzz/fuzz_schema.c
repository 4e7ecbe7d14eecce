/* libFuzzer target: arbitrary bytes as a CRD (version v1) and as the objects validated against it
 * must give 0 or a MUSTER_* code, never a crash, leak or unbounded recursion (ASan, `make fuzz`).
 */
#include "cluster-adapters/kube/schema.h"
#include "cluster-adapters/kube/yaml.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    json_object *docs = NULL;
    if (kube_yaml_parse((const char *)data, size, "fuzz", &docs, err, sizeof(err)) != 0)
        return 0;
    struct kube_schema *s = NULL;
    if (kube_schema_parse_crd((const char *)data, size, "fuzz", "v1", &s, err, sizeof(err)) == 0) {
        /* The CRD document itself and every other document, as objects of that kind. */
        for (size_t i = 0; i < json_object_array_length(docs); i++) {
            struct kube_schema_errors errs;
            kube_schema_errors_init(&errs);
            kube_schema_validate(s, json_object_array_get_idx(docs, i), &errs);
            kube_schema_errors_close(&errs);
        }
        kube_schema_free(s);
    }
    json_object_put(docs);
    return 0;
}
