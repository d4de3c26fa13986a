#include "helpers/common/unique_fd.h"
