/* Deprecated attribute keys, kept so that old code compiles.
 * Generated from pmix-sys/src/attrs.rs by `make header` (pmix-sys/src/bin/gen-header.rs).
 * Do not edit: change the table and regenerate. Included by the public headers;
 * not meant to be included directly. */
#ifndef PMIX_ATTRS_DEPRECATED_GEN_H
#define PMIX_ATTRS_DEPRECATED_GEN_H

#define PMIX_EVENT_BASE                         "pmix.evbase"             // void*
#define PMIX_CRYPTO_KEY                         "pmix.sec.key"            // pmix_byte_object_t
#define PMIX_TOPOLOGY                           "pmix.topo"               // void*
#define PMIX_DEBUG_JOB                          "pmix.dbg.job"            // char*
#define PMIX_RECONNECT_SERVER                   "pmix.cnct.recon"         // bool
#define PMIX_USOCK_DISABLE                      "pmix.usock.disable"      // bool
#define PMIX_SOCKET_MODE                        "pmix.sockmode"           // uint32_t
#define PMIX_SINGLE_LISTENER                    "pmix.sing.listnr"        // bool
#define PMIX_ALLOC_NETWORK                      "pmix.alloc.net"          // pmix_data_array_t*
#define PMIX_ALLOC_NETWORK_ID                   "pmix.alloc.netid"        // char*
#define PMIX_ALLOC_NETWORK_QOS                  "pmix.alloc.netqos"       // char*
#define PMIX_ALLOC_NETWORK_TYPE                 "pmix.alloc.nettype"      // char*
#define PMIX_ALLOC_NETWORK_PLANE                "pmix.alloc.netplane"     // char*
#define PMIX_ALLOC_NETWORK_ENDPTS               "pmix.alloc.endpts"       // size_t
#define PMIX_ALLOC_NETWORK_ENDPTS_NODE          "pmix.alloc.endpts.nd"    // size_t
#define PMIX_ALLOC_NETWORK_SEC_KEY              "pmix.alloc.nsec"         // pmix_byte_object_t
#define PMIX_PROC_DATA                          "pmix.pdata"              // pmix_data_array_t*
#define PMIX_LOCALITY                           "pmix.loc"                // uint16_t
#define PMIX_LOCAL_TOPO                         "pmix.ltopo"              // char*
#define PMIX_TOPOLOGY_XML                       "pmix.topo.xml"           // char*
#define PMIX_TOPOLOGY_FILE                      "pmix.topo.file"          // char*
#define PMIX_TOPOLOGY_SIGNATURE                 "pmix.toposig"            // char*
#define PMIX_HWLOC_SHMEM_ADDR                   "pmix.hwlocaddr"          // size_t
#define PMIX_HWLOC_SHMEM_SIZE                   "pmix.hwlocsize"          // size_t
#define PMIX_HWLOC_SHMEM_FILE                   "pmix.hwlocfile"          // char*
#define PMIX_HWLOC_XML_V1                       "pmix.hwlocxml1"          // char*
#define PMIX_HWLOC_XML_V2                       "pmix.hwlocxml2"          // char*
#define PMIX_HWLOC_SHARE_TOPO                   "pmix.hwlocsh"            // bool
#define PMIX_HWLOC_HOLE_KIND                    "pmix.hwlocholek"         // char*
#define PMIX_DSTPATH                            "pmix.dstpath"            // char*
#define PMIX_COLLECTIVE_ALGO                    "pmix.calgo"              // char*
#define PMIX_COLLECTIVE_ALGO_REQD               "pmix.calreqd"            // bool
#define PMIX_PROC_BLOB                          "pmix.pblob"              // pmix_byte_object_t
#define PMIX_MAP_BLOB                           "pmix.mblob"              // pmix_byte_object_t
#define PMIX_MAPPER                             "pmix.mapper"             // char*
#define PMIX_NON_PMI                            "pmix.nonpmi"             // bool
#define PMIX_PROC_URI                           "pmix.puri"               // char*
#define PMIX_ARCH                               "pmix.arch"               // uint32_t
#define PMIX_DEBUG_JOB_DIRECTIVES               "pmix.dbg.jdirs"          // pmix_data_array_t*
#define PMIX_DEBUG_APP_DIRECTIVES               "pmix.dbg.adirs"          // pmix_data_array_t*
#define PMIX_EVENT_NO_TERMINATION               "pmix.evnoterm"           // bool
#define PMIX_EVENT_WANT_TERMINATION             "pmix.evterm"             // bool
#define PMIX_TAG_OUTPUT                         "pmix.tagout"             // bool
#define PMIX_TIMESTAMP_OUTPUT                   "pmix.tsout"              // bool
#define PMIX_MERGE_STDERR_STDOUT                "pmix.mergeerrout"        // bool
#define PMIX_OUTPUT_TO_FILE                     "pmix.outfile"            // char*
#define PMIX_OUTPUT_TO_DIRECTORY                "pmix.outdir"             // char*
#define PMIX_OUTPUT_NOCOPY                      "pmix.nocopy"             // bool
#define PMIX_GDS_MODULE                         "pmix.gds.mod"            // char*
#define PMIX_BFROPS_MODULE                      "pmix.bfrops.mod"         // char*
#define PMIX_PNET_SETUP_APP                     "pmix.pnet.setapp"        // pmix_byte_object_t
#define PMIX_IOF_STOP                           "pmix.iof.stop"           // bool
#define PMIX_NOTIFY_LAUNCH                      "pmix.note.lnch"          // bool

#endif /* PMIX_ATTRS_DEPRECATED_GEN_H */
